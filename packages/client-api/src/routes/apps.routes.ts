import { Hono, type Context } from 'hono';
import { CLIENT_SCOPES, clientAppInputSchema } from '@swarm/contract';
import { requireToken, type BearerEnv } from '../bearer.ts';
import { apiError, refusalAnswer } from '../errors.ts';
import { readParams } from '../params.ts';

const vapidKey = (c: Context<BearerEnv>) => c.var.deps.node.push.subscriptions.vapidPublicKey;

/**
 * `POST /api/v1/apps`: an app registers itself (no token yet) and gets its client credentials.
 * `GET /api/v1/apps/verify_credentials`: the app behind a token, any scope.
 */
export function appRoutes() {
  const app = new Hono<BearerEnv>();
  app.post('/api/v1/apps', async (c) => {
    const read = await readParams(c.req.raw);
    if (!read.ok) return apiError(c, 400, read.reason);
    const input = clientAppInputSchema.safeParse(read.value);
    if (!input.success) {
      const issue = input.error.issues[0]!;
      // A missing field or one of the wrong type (a number, an object) is named as such; the
      // schema's own messages say what is wrong with a value of the right type.
      const field = String(issue.path[0] ?? '');
      const generic = issue.code === 'invalid_type' || issue.code === 'invalid_union';
      const message =
        !generic || !field
          ? issue.message
          : read.value[field] === undefined
            ? `${field} can't be blank`
            : `${field} is not valid`;
      return apiError(c, 422, `Validation failed: ${message}`);
    }
    const registered = await c.var.deps.auth.clientApps.register(input.data, c.env.clientIp);
    if (!registered.ok) return refusalAnswer(c, registered.reason);
    // `vapid_key`: what the app's push service will see pushes signed with (Web Push).
    return c.json({ ...registered.value, vapid_key: vapidKey(c) });
  });
  app.get('/api/v1/apps/verify_credentials', requireToken([...CLIENT_SCOPES]), (c) => {
    const { app: client } = c.var.grant;
    return c.json({
      id: client.id,
      name: client.name,
      website: client.website,
      scopes: client.scopes,
      vapid_key: vapidKey(c),
    });
  });
  return app;
}
