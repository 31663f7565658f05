import { Hono, type Context } from 'hono';
import { baseUrlForDomain, parseHandleAddress } from '@swarm/contract';
import type { AppAccount, PostView } from '@swarm/domain';
import type { BearerEnv } from '../bearer.ts';
import { scopesAllow } from '@swarm/auth';
import { apiError } from '../errors.ts';
import { pageLimit, textParam } from '../paging.ts';
import { readParams } from '../params.ts';
import { accountJson } from '../route-kit.ts';

/**
 * `GET /api/v2/search` (docs/clients.md "Search") over the domain's search (people, posts,
 * hashtags, with the viewer's mutes and blocks left out and hidden accounts never shown).
 * `resolve=true` (a token needed, as on Mastodon) asks another node for a `handle@domain` or a
 * profile URL (`https://node/@handle`) it does not know yet, within the profiles' budgets;
 * without it such an address is answered from what this node stores. People the domain finds
 * only by their handle in the registry (never stored here) have no account id and are left out.
 */

const LIMIT = { default: 20, max: 40 } as const;
const TYPES = ['accounts', 'statuses', 'hashtags'] as const;

/** `https://beta.example/@bob` → `bob@beta.example`; anything else as it came. */
function addressFromUrl(q: string): string | null {
  const match = /^https?:\/\/([^/?#@]+)\/@([A-Za-z0-9_.-]+)\/?$/.exec(q);
  return match ? `${match[2]}@${match[1]!.toLowerCase()}` : null;
}

export interface SearchStatuses {
  (c: Context<BearerEnv>, posts: PostView[], viewerId: string | null): Promise<unknown[]>;
}

export function searchRoutes(statuses: SearchStatuses) {
  const app = new Hono<BearerEnv>();
  app.get('/api/v2/search', async (c) => {
    const { deps } = c.var;
    const { node } = deps;
    const read = await readParams(c.req.raw);
    if (!read.ok) return apiError(c, 400, read.reason);
    const params = read.value;
    const type = textParam(params, 'type');
    if (type !== undefined && !(TYPES as readonly string[]).includes(type)) {
      return apiError(c, 422, 'Validation failed: type is accounts, statuses or hashtags');
    }
    const resolve = ['true', '1'].includes(String(params.resolve ?? ''));
    const limit = pageLimit(params, LIMIT);
    const offsetText = textParam(params, 'offset');
    const offset = offsetText && /^\d{1,4}$/.test(offsetText) ? Number(offsetText) : 0;

    // The token is optional here (public search), but checked when sent.
    const header = c.req.header('authorization');
    let viewer: { id: string; handle: string; showNsfw: boolean } | null = null;
    if (header) {
      const token = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
      const grant = token ? await deps.auth.clientTokens.authenticate(token) : null;
      if (!grant) return apiError(c, 401, 'The access token is invalid');
      if (!scopesAllow(grant.scopes, ['read:search'])) {
        return apiError(c, 403, 'This action is outside the authorized scopes');
      }
      if (grant.userId) {
        viewer = await node.db.prisma.user.findUnique({
          where: { id: grant.userId },
          select: { id: true, handle: true, showNsfw: true },
        });
      }
    }
    if (resolve && !viewer) {
      return apiError(c, 401, 'Search with resolve needs an access token of a person');
    }

    const raw = String(params.q ?? '').trim();
    if (raw === '') return c.json({ accounts: [], statuses: [], hashtags: [] });
    const fromUrl = addressFromUrl(raw);
    const q = fromUrl ?? raw;
    const bare = q.replace(/^@/, '');
    const address = bare.includes('@') ? parseHandleAddress(bare) : null;
    // Without `resolve`, an address is searched by its handle among what this node stores.
    const asked = address?.ok && !resolve ? address.value.handle : q;
    const searched = await node.search.search(viewer, { q: asked });
    if (!searched.ok) {
      return searched.reason.code === 'INVALID_REQUEST'
        ? apiError(c, 422, `Validation failed: ${searched.reason.message}`)
        : apiError(c, 502, searched.reason.message, { code: searched.reason.code });
    }
    const found = searched.value;
    const wants = (t: (typeof TYPES)[number]) => type === undefined || type === t;

    let accounts: ReturnType<typeof accountJson>[] = [];
    if (wants('accounts')) {
      const addresses = found.people.map((p) => `${p.handle}@${p.domain}`);
      if (address?.ok && !resolve) addresses.unshift(`${address.value.handle}@${address.value.domain}`);
      const records = await node.appAccounts.byAddresses(addresses);
      const seen = new Set<string>();
      const list: AppAccount[] = [];
      for (const a of addresses) {
        const record = records.get(a.toLowerCase());
        if (record && !seen.has(record.id)) {
          seen.add(record.id);
          list.push(record);
        }
      }
      accounts = list.slice(offset, offset + limit).map((r) => accountJson(deps, r));
    }
    const hashtags = wants('hashtags')
      ? found.tags.slice(offset, offset + limit).map((t) => ({
          name: t.tag,
          url: `${baseUrlForDomain(node.config.domain)}/tags/${encodeURIComponent(t.tag)}`,
          history: [],
          following: false,
        }))
      : [];
    const statusList = wants('statuses')
      ? await statuses(c, found.posts.slice(offset, offset + limit), viewer?.id ?? null)
      : [];
    return c.json({ accounts, statuses: statusList, hashtags });
  });
  return app;
}
