import { Hono, type Context } from 'hono';
import { PUSH_ALERTS, type PushOwner, type PushSubscriptionView } from '@swarm/domain';
import { requireToken, type BearerEnv } from '../bearer.ts';
import { apiError, refusalAnswer } from '../errors.ts';
import { readParams, type Params } from '../params.ts';

/**
 * `/api/v1/push/subscription` (docs/clients.md "Web Push"): the token's one Web Push
 * subscription, created (a new one replaces it), read, changed (alerts, policy) and deleted.
 * Scope `push`, a person's token only. Parameters as Mastodon names them, in JSON, a form or the
 * query string: `subscription[endpoint]`, `subscription[keys][p256dh]`,
 * `subscription[keys][auth]`, `data[alerts][mention]`…, `data[policy]`.
 */

/** Mastodon's WebPushSubscription entity. */
export function webPushSubscription(view: PushSubscriptionView) {
  return {
    id: view.id,
    endpoint: view.endpoint,
    // The node sends RFC 8291 (aes128gcm) pushes only.
    standard: true,
    alerts: Object.fromEntries(PUSH_ALERTS.map((alert) => [alert, view.alerts.includes(alert)])),
    policy: view.policy,
    server_key: view.serverKey,
  };
}

const record = (value: unknown): Params =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Params) : {};

const ownerOf = (c: Context<BearerEnv>): PushOwner => ({
  kind: 'token',
  tokenId: c.var.grant.tokenId,
  userId: c.var.grant.userId!,
});

const NOT_FOUND = 'Record not found';

export function pushRoutes() {
  const app = new Hono<BearerEnv>();
  const path = '/api/v1/push/subscription';
  app.use(path, requireToken(['push'], { user: true }));

  app.post(path, async (c) => {
    const read = await readParams(c.req.raw);
    if (!read.ok) return apiError(c, 400, read.reason);
    const subscription = record(read.value.subscription);
    const data = record(read.value.data);
    const keys = record(subscription.keys);
    const made = await c.var.deps.node.push.subscriptions.subscribe(ownerOf(c), {
      endpoint: subscription.endpoint,
      keys: { p256dh: keys.p256dh, auth: keys.auth },
      alerts: data.alerts,
      policy: data.policy ?? read.value.policy,
    });
    if (!made.ok) return refusalAnswer(c, made.reason);
    return c.json(webPushSubscription(made.value));
  });

  app.get(path, async (c) => {
    const found = await c.var.deps.node.push.subscriptions.current(ownerOf(c));
    return found ? c.json(webPushSubscription(found)) : apiError(c, 404, NOT_FOUND);
  });

  app.put(path, async (c) => {
    const read = await readParams(c.req.raw);
    if (!read.ok) return apiError(c, 400, read.reason);
    const data = record(read.value.data);
    const changed = await c.var.deps.node.push.subscriptions.update(ownerOf(c), {
      alerts: data.alerts,
      policy: data.policy ?? read.value.policy,
    });
    if (!changed.ok) return refusalAnswer(c, changed.reason);
    return changed.value ? c.json(webPushSubscription(changed.value)) : apiError(c, 404, NOT_FOUND);
  });

  // As on Mastodon, deleting answers `{}` whether there was a subscription or not.
  app.delete(path, async (c) => {
    await c.var.deps.node.push.subscriptions.remove(ownerOf(c));
    return c.json({});
  });
  return app;
}
