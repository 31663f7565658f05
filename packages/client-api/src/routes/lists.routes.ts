import { Hono, type Context } from 'hono';
import { baseUrlForDomain } from '@swarm/contract';
import { REPLIES_POLICIES, type ListView, type RepliesPolicy } from '@swarm/domain';
import { requireToken, type BearerEnv } from '../bearer.ts';
import { apiError, refusalAnswer } from '../errors.ts';
import { listParam, pageLimit, setLinkHeader, textParam } from '../list-paging.ts';
import { booleanValue, readParams, type Params } from '../params.ts';
import { accountJson } from '../route-kit.ts';

/**
 * Lists (docs/clients.md "Lists"): a person's lists of people they follow, over the domain's
 * list service, the one our pages use. A list's id is its UUID; another person's list does not
 * exist for the caller (404). The list's timeline is in timelines.routes.ts, its stream in
 * streaming/.
 */

type C = Context<BearerEnv>;

const READ = ['read:lists'];
const WRITE = ['write:lists'];
/** Members per page of `GET /lists/:id/accounts`; `limit=0` answers them all (at most 500). */
const MEMBERS_PAGE = { default: 40, max: 80 } as const;

function listEntity(list: ListView) {
  return {
    id: list.id,
    title: list.title,
    replies_policy: list.repliesPolicy,
    exclusive: list.exclusive,
  };
}

/** Title, replies policy and exclusive as the domain takes them, or why not (422). */
function settingsOf(
  params: Params,
): { title?: string; repliesPolicy?: RepliesPolicy; exclusive?: boolean } | string {
  const { title, replies_policy: policy, exclusive } = params;
  if (title !== undefined && typeof title !== 'string') return 'title must be text';
  if (policy !== undefined && !REPLIES_POLICIES.includes(policy as RepliesPolicy)) {
    return `replies_policy must be one of ${REPLIES_POLICIES.join(', ')}`;
  }
  const flag = exclusive === undefined ? undefined : booleanValue(exclusive);
  if (exclusive !== undefined && flag === undefined) return 'exclusive must be true or false';
  return {
    ...(title !== undefined ? { title } : {}),
    ...(policy !== undefined ? { repliesPolicy: policy as RepliesPolicy } : {}),
    ...(flag !== undefined ? { exclusive: flag } : {}),
  };
}

async function params(c: C): Promise<Params | Response> {
  const read = await readParams(c.req.raw);
  return read.ok ? read.value : apiError(c, 400, read.reason);
}

export function listRoutes() {
  const app = new Hono<BearerEnv>();
  const user = { user: true } as const;

  app.get('/api/v1/lists', requireToken(READ, user), async (c) => {
    const lists = await c.var.deps.node.lists.lists(c.var.grant.userId!);
    return c.json(lists.map(listEntity));
  });

  app.get('/api/v1/lists/:id', requireToken(READ, user), async (c) => {
    const list = await c.var.deps.node.lists.get(c.var.grant.userId!, c.req.param('id'));
    return list.ok ? c.json(listEntity(list.value)) : refusalAnswer(c, list.reason);
  });

  app.post('/api/v1/lists', requireToken(WRITE, user), async (c) => {
    const read = await params(c);
    if (read instanceof Response) return read;
    const settings = settingsOf(read);
    if (typeof settings === 'string') return apiError(c, 422, `Validation failed: ${settings}`);
    const created = await c.var.deps.node.lists.create(c.var.grant.userId!, {
      ...settings,
      title: settings.title ?? '',
    });
    return created.ok ? c.json(listEntity(created.value)) : refusalAnswer(c, created.reason);
  });

  app.put('/api/v1/lists/:id', requireToken(WRITE, user), async (c) => {
    const read = await params(c);
    if (read instanceof Response) return read;
    const settings = settingsOf(read);
    if (typeof settings === 'string') return apiError(c, 422, `Validation failed: ${settings}`);
    const updated = await c.var.deps.node.lists.update(
      c.var.grant.userId!,
      c.req.param('id'),
      settings,
    );
    return updated.ok ? c.json(listEntity(updated.value)) : refusalAnswer(c, updated.reason);
  });

  app.delete('/api/v1/lists/:id', requireToken(WRITE, user), async (c) => {
    const removed = await c.var.deps.node.lists.remove(c.var.grant.userId!, c.req.param('id'));
    return removed.ok ? c.json({}) : refusalAnswer(c, removed.reason);
  });

  app.get('/api/v1/lists/:id/accounts', requireToken(READ, user), async (c) => {
    const { deps } = c.var;
    const read = await params(c);
    if (read instanceof Response) return read;
    const members = await deps.node.lists.members(c.var.grant.userId!, c.req.param('id'));
    if (!members.ok) return refusalAnswer(c, members.reason);
    // Most recently added first; `max_id` and `min_id` are members' account ids.
    const ids = members.value.map((m) => m.accountId);
    const maxAt = ids.indexOf(textParam(read, 'max_id') ?? '');
    const minAt = ids.indexOf(textParam(read, 'min_id') ?? textParam(read, 'since_id') ?? '');
    const all = read.limit === '0' || read.limit === 0;
    const limit = all ? ids.length : pageLimit(read, MEMBERS_PAGE);
    const from = maxAt >= 0 ? maxAt + 1 : 0;
    const to = minAt >= 0 ? minAt : ids.length;
    // Older than `max_id` reads down from it; only `min_id`: the ones just above it.
    const page =
      maxAt < 0 && minAt >= 0
        ? ids.slice(Math.max(from, to - limit), to)
        : ids.slice(from, Math.min(to, from + limit));
    const found = await deps.node.appAccounts.byIds(page);
    if (!all) {
      const last = page[page.length - 1];
      const more = last !== undefined && ids.indexOf(last) < ids.length - 1;
      setLinkHeader(
        c,
        baseUrlForDomain(deps.node.config.domain),
        { oldest: more ? last : null, newest: page[0] ?? null },
        limit,
      );
    }
    return c.json(
      page.flatMap((id) => {
        const record = found.get(id);
        return record ? [accountJson(deps, record)] : [];
      }),
    );
  });

  app.post('/api/v1/lists/:id/accounts', requireToken(WRITE, user), (c) => changeMembers(c, 'add'));
  app.delete('/api/v1/lists/:id/accounts', requireToken(WRITE, user), (c) =>
    changeMembers(c, 'remove'),
  );

  app.get('/api/v1/accounts/:id/lists', requireToken(READ, user), async (c) => {
    const lists = await c.var.deps.node.lists.listsWith(c.var.grant.userId!, {
      accountId: c.req.param('id'),
    });
    return lists.ok ? c.json(lists.value.map(listEntity)) : refusalAnswer(c, lists.reason);
  });

  return app;
}

/** `account_ids[]` added to or taken off the list; answers `{}` as Mastodon does. */
async function changeMembers(c: C, change: 'add' | 'remove') {
  const read = await params(c);
  if (read instanceof Response) return read;
  const ids = listParam(read, 'account_ids') ?? [];
  if (ids.length === 0) return apiError(c, 422, 'Validation failed: account_ids is empty');
  const refs = ids.map((accountId) => ({ accountId }));
  const { lists } = c.var.deps.node;
  const owner = c.var.grant.userId!;
  const listId = c.req.param('id')!;
  const done =
    change === 'add'
      ? await lists.addMembers(owner, listId, refs)
      : await lists.removeMembers(owner, listId, refs);
  if (done.ok) return c.json({});
  // Someone not followed is Mastodon's validation failure of the list's accounts.
  return done.reason.code === 'NOT_FOLLOWED'
    ? apiError(c, 422, `Validation failed: ${done.reason.message}`)
    : refusalAnswer(c, done.reason);
}
