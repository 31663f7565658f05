import { Hono } from 'hono';
import { baseUrlForDomain } from '@swarm/contract';
import { requireToken, type BearerEnv } from '../bearer.ts';
import { apiError } from '../errors.ts';
import { pageLimit, setLinkHeader, textParam } from '../list-paging.ts';
import { readParams } from '../params.ts';
import { accountJson } from '../route-kit.ts';

/**
 * `GET /api/v1/mutes` and `/api/v1/blocks`: the people the token's person muted or blocked,
 * newest first, as accounts. The domain keeps them by address (at most 5,000 each); someone
 * muted by address whom this node never stored has no account id and is left out. Paged by
 * position in that list (`max_id` is an offset: the lists have no ids of their own for apps).
 */
const LIMIT = { default: 40, max: 80 } as const;

export function safetyRoutes() {
  const app = new Hono<BearerEnv>();
  for (const kind of ['mutes', 'blocks'] as const) {
    app.get(
      `/api/v1/${kind}`,
      requireToken([kind === 'mutes' ? 'read:mutes' : 'read:blocks', 'follow'], { user: true }),
      async (c) => {
        const { deps } = c.var;
        const { safety } = deps.node.moderation;
        const read = await readParams(c.req.raw);
        if (!read.ok) return apiError(c, 400, read.reason);
        const limit = pageLimit(read.value, LIMIT);
        const userId = c.var.grant.userId!;
        const addresses =
          kind === 'mutes'
            ? (await safety.mutes(userId)).filter((m) => m.kind === 'person').map((m) => m.target)
            : (await safety.blocks(userId)).map((b) => b.address);
        const offsetText = textParam(read.value, 'max_id');
        const offset = offsetText && /^\d{1,5}$/.test(offsetText) ? Number(offsetText) : 0;
        const slice = addresses.slice(offset, offset + limit);
        const records = await deps.node.appAccounts.byAddresses(slice);
        const accounts = slice.flatMap((a) => {
          const record = records.get(a.toLowerCase());
          return record ? [accountJson(deps, record)] : [];
        });
        const next = offset + limit < addresses.length ? String(offset + limit) : null;
        setLinkHeader(
          c,
          baseUrlForDomain(deps.node.config.domain),
          { oldest: next, newest: null },
          limit,
        );
        return c.json(accounts);
      },
    );
  }
  return app;
}
