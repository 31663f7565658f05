import { Hono, type Context } from 'hono';
import { baseUrlForDomain } from '@swarm/contract';
import { FOLLOW_PAGE_LIMIT, addressOf, type FollowSide } from '@swarm/domain';
import { appSignerFor } from '../app-signing.ts';
import { requireToken, type BearerEnv } from '../bearer.ts';
import { credentialAccount } from '../entities/account.ts';
import { relationshipEntity } from '../entities/relationship.ts';
import { apiError, refusalAnswer } from '../errors.ts';
import { pageLimit, setLinkHeader, textParam, listParam } from '../list-paging.ts';
import { readParams } from '../params.ts';
import { accountJson, notFound, tokenPerson } from '../route-kit.ts';

/**
 * Accounts (docs/clients.md "Accounts"): the token's person, anyone by id (a local user or a
 * remote actor kept here), by address (`lookup`, resolved from their node on demand within the
 * profiles' budgets), follow lists, relationships, and following, muting and blocking them.
 * Routes with a fixed last segment come before `/:id`.
 */
export function accountRoutes() {
  const app = new Hono<BearerEnv>();
  app.get(
    '/api/v1/accounts/verify_credentials',
    requireToken(['read:accounts', 'profile'], { user: true }),
    async (c) => {
      const { deps } = c.var;
      const person = await deps.usage.person(c.var.grant.userId!);
      if (!person) return apiError(c, 401, 'The access token is invalid');
      return c.json(credentialAccount(person, baseUrlForDomain(deps.node.config.domain)));
    },
  );

  app.get('/api/v1/accounts/lookup', async (c) => {
    const { deps } = c.var;
    const acct = c.req.query('acct')?.trim().replace(/^@/, '') ?? '';
    if (acct === '') return apiError(c, 422, 'Validation failed: acct is missing');
    if (acct.length > 300) return notFound(c);
    // Resolves someone not kept here from their node (the profiles' visitors budget).
    const read = await deps.node.profiles.get(null, { address: acct, limit: 0 });
    if (!read.ok) {
      return read.reason.code === 'PEER_UNAVAILABLE'
        ? apiError(c, 502, read.reason.message, { code: read.reason.code })
        : notFound(c);
    }
    const { actor } = read.value.profile;
    const found = await deps.node.appAccounts.byAddresses([`${actor.handle}@${actor.domain}`]);
    const record = found.get(`${actor.handle}@${actor.domain}`.toLowerCase());
    return record ? c.json(accountJson(deps, record)) : notFound(c);
  });

  app.get(
    '/api/v1/accounts/relationships',
    requireToken(['read:follows'], { user: true }),
    async (c) => {
      const read = await readParams(c.req.raw);
      if (!read.ok) return apiError(c, 400, read.reason);
      const ids = listParam(read.value, 'id') ?? [];
      const person = await tokenPerson(c);
      if (!person) return apiError(c, 401, 'The access token is invalid');
      const relationships = await c.var.deps.node.appAccounts.relationships(person, ids);
      return c.json(relationships.map(relationshipEntity));
    },
  );

  // Several accounts at once (`id[]`), in the order asked; unknown ids are left out.
  app.get('/api/v1/accounts', async (c) => {
    const { deps } = c.var;
    const read = await readParams(c.req.raw);
    if (!read.ok) return apiError(c, 400, read.reason);
    const ids = listParam(read.value, 'id') ?? [];
    const found = await deps.node.appAccounts.byIds(ids);
    return c.json(
      ids.flatMap((id) => {
        const record = found.get(id);
        return record ? [accountJson(deps, record)] : [];
      }),
    );
  });

  app.get('/api/v1/accounts/:id/featured_tags', async (c) => {
    const record = await c.var.deps.node.appAccounts.byId(c.req.param('id'));
    return record ? c.json([]) : notFound(c);
  });

  for (const side of ['followers', 'following'] as const) {
    app.get(`/api/v1/accounts/:id/${side}`, (c) => followList(c, side));
  }

  app.get('/api/v1/accounts/:id', async (c) => {
    const { deps } = c.var;
    const record = await deps.node.appAccounts.byId(c.req.param('id'));
    return record ? c.json(accountJson(deps, record)) : notFound(c);
  });

  const ACTIONS = {
    follow: ['write:follows', 'follow'],
    unfollow: ['write:follows', 'follow'],
    mute: ['write:mutes', 'follow'],
    unmute: ['write:mutes', 'follow'],
    block: ['write:blocks', 'follow'],
    unblock: ['write:blocks', 'follow'],
  } as const;
  for (const [action, scopes] of Object.entries(ACTIONS)) {
    app.post(`/api/v1/accounts/:id/${action}`, requireToken(scopes, { user: true }), async (c) => {
      const { node } = c.var.deps;
      const person = await tokenPerson(c);
      if (!person) return apiError(c, 401, 'The access token is invalid');
      const record = await node.appAccounts.byId(c.req.param('id'));
      if (!record) return notFound(c);
      const address = addressOf(record);
      const userId = person.id;
      // Signed under the app's delegation where possible (app-signing.ts), else as our pages'.
      const sign = appSignerFor(node, c.var.grant, userId);
      const done =
        action === 'follow'
          ? await node.actions.interactions.follow(userId, { address, sign })
          : action === 'unfollow'
            ? await node.actions.interactions.unfollow(userId, { address, sign })
            : action === 'mute'
              ? await node.moderation.safety.mute(userId, address)
              : action === 'unmute'
                ? await node.moderation.safety.unmute(userId, address)
                : action === 'block'
                  ? await node.moderation.safety.block(userId, address)
                  : await node.moderation.safety.unblock(userId, address);
      if (!done.ok) return refusalAnswer(c, done.reason);
      const [relationship] = await node.appAccounts.relationships(person, [record.id]);
      return c.json(relationshipEntity(relationship!));
    });
  }
  return app;
}

async function followList(c: Context<BearerEnv>, side: FollowSide) {
  const { deps } = c.var;
  const read = await readParams(c.req.raw);
  if (!read.ok) return apiError(c, 400, read.reason);
  const limit = pageLimit(read.value, FOLLOW_PAGE_LIMIT);
  const page = await deps.node.appAccounts.follows(c.req.param('id')!, side, {
    maxId: textParam(read.value, 'max_id'),
    sinceId: textParam(read.value, 'since_id'),
    minId: textParam(read.value, 'min_id'),
    limit,
  });
  if (!page) return notFound(c);
  setLinkHeader(c, baseUrlForDomain(deps.node.config.domain), page, limit);
  return c.json(page.accounts.map((record) => accountJson(deps, record)));
}
