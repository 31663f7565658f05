import { Hono, type Context } from 'hono';
import {
  baseUrlForDomain,
  formatSwarmPostId,
  parseHandleAddress,
  parseSwarmPostId,
} from '@swarm/contract';
import type { AppAccount, PostView } from '@swarm/domain';
import type { BearerEnv } from '../bearer.ts';
import { statusEntities, statusEntity } from '../entities/status.ts';
import { apiError } from '../errors.ts';
import { pageLimit, textParam } from '../list-paging.ts';
import { readParams } from '../params.ts';
import { accountJson, optionalViewer } from '../route-kit.ts';

/**
 * `GET /api/v2/search` (docs/clients.md "Search") over the domain's search (people, posts,
 * hashtags, with the viewer's mutes and blocks left out and hidden accounts never shown).
 * `resolve=true` (a token needed, as on Mastodon) asks another node for a `handle@domain` or a
 * profile URL (`https://node/@handle`) it does not know yet, within the profiles' budgets, and
 * a post's URL (`https://node/posts/<id>`) it holds no copy of; without it such an address is
 * answered from what this node stores. People the domain finds
 * only by their handle in the registry (never stored here) have no account id and are left out.
 */

const LIMIT = { default: 20, max: 40 } as const;
const TYPES = ['accounts', 'statuses', 'hashtags'] as const;

/** `https://beta.example/posts/<id>` (a status's `url`) → its node and post id. */
function postFromUrl(q: string): { domain: string; postId: string } | 'malformed' | null {
  const match = /^https?:\/\/([^/?#@]+)\/posts\/([^/?#]+)\/?$/.exec(q);
  if (!match) return null;
  // Through the contract's parser: a malformed node or post id is no post's URL.
  const parsed = parseSwarmPostId(`swarm:${match[1]!.toLowerCase()}:${match[2]!}`);
  return parsed.ok ? parsed.value : 'malformed';
}

/** `https://beta.example/@bob` → `bob@beta.example`; anything else as it came. */
function addressFromUrl(q: string): string | null {
  const match = /^https?:\/\/([^/?#@]+)\/@([A-Za-z0-9_.-]+)\/?$/.exec(q);
  return match ? `${match[2]}@${match[1]!.toLowerCase()}` : null;
}

export function searchRoutes() {
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
    const viewer = await optionalViewer(c, ['read:search']);
    if (viewer instanceof Response) return viewer;
    if (resolve && !viewer) {
      return apiError(c, 401, 'Search with resolve needs an access token of a person');
    }

    const raw = String(params.q ?? '').trim();
    if (raw === '') return c.json({ accounts: [], statuses: [], hashtags: [] });
    const postAddress = postFromUrl(raw);
    if (postAddress) {
      const status =
        postAddress !== 'malformed' && wantsType(type, 'statuses')
          ? await statusAt(c, postAddress, viewer, resolve)
          : null;
      return c.json({ accounts: [], statuses: status ? [status] : [], hashtags: [] });
    }
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
    const wants = (t: (typeof TYPES)[number]) => wantsType(type, t);

    let accounts: ReturnType<typeof accountJson>[] = [];
    if (wants('accounts')) {
      const addresses = found.people.map((p) => `${p.handle}@${p.domain}`);
      if (address?.ok && !resolve)
        addresses.unshift(`${address.value.handle}@${address.value.domain}`);
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
      ? await statusesOf(c, found.posts.slice(offset, offset + limit), viewer)
      : [];
    return c.json({ accounts, statuses: statusList, hashtags });
  });
  return app;
}

const wantsType = (type: string | undefined, t: (typeof TYPES)[number]) =>
  type === undefined || type === t;

/**
 * The status at a post's URL: ours by its id; another node's from its copy here, or (with
 * `resolve`) read from its node through the thread service, on the post pages' budgets, which
 * keeps a copy. Null when there is none the viewer may read.
 */
async function statusAt(
  c: Context<BearerEnv>,
  at: { domain: string; postId: string },
  viewer: { id: string; handle: string; showNsfw: boolean } | null,
  resolve: boolean,
) {
  const { node } = c.var.deps;
  const self = node.config.domain;
  let rowId: string | null = null;
  if (at.domain === self) {
    rowId = at.postId;
  } else {
    const apId = formatSwarmPostId(at);
    const find = () => node.db.prisma.post.findFirst({ where: { apId }, select: { id: true } });
    let copy = await find();
    if (!copy && resolve) {
      const read = await node.threads.get(viewer, apId);
      if (read.ok) copy = await find();
    }
    rowId = copy?.id ?? null;
  }
  const record = rowId ? await node.clientReads.statusByRow(viewer, rowId) : null;
  return record ? statusEntity(record, self) : null;
}

/**
 * The posts the domain's search found, as statuses: a local post by its row id, a copy by its
 * swarm id (`swarm:{domain}:{postId}`, the copy's `ap_id`); the read model checks each.
 */
async function statusesOf(
  c: Context<BearerEnv>,
  posts: readonly PostView[],
  viewer: { id: string; handle: string } | null,
) {
  const { node } = c.var.deps;
  if (posts.length === 0) return [];
  const remote = posts.filter((p) => p.isRemote).map((p) => p.id);
  const copies = remote.length
    ? await node.db.prisma.post.findMany({
        where: { apId: { in: remote } },
        select: { id: true, apId: true },
      })
    : [];
  const rowOf = new Map(copies.map((r) => [r.apId!, r.id]));
  const records = [];
  for (const post of posts) {
    const rowId = post.isRemote ? rowOf.get(post.id) : post.id;
    const record = rowId ? await node.clientReads.statusByRow(viewer, rowId) : null;
    if (record) records.push(record);
  }
  return statusEntities(records, node.config.domain);
}
