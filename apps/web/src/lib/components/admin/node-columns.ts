import type { NodeSort, NodeStatus, SortDir } from './admin-types.ts';

/** Columns of the nodes table, in order; each one sorts (server-side) by its own key. */
export const NODE_COLUMNS: readonly { sort: NodeSort; label: string; numeric: boolean }[] = [
  { sort: 'domain', label: 'Domain', numeric: false },
  { sort: 'name', label: 'Name', numeric: false },
  { sort: 'trust', label: 'Trust', numeric: true },
  { sort: 'active', label: 'Active', numeric: false },
  { sort: 'verified', label: 'Verified', numeric: false },
  { sort: 'failures', label: 'Failures', numeric: true },
  { sort: 'lastSeen', label: 'Last seen', numeric: false },
  { sort: 'users', label: 'Users', numeric: true },
  { sort: 'posts', label: 'Posts', numeric: true },
  { sort: 'discoveredVia', label: 'Discovered via', numeric: false },
];

export const NODE_STATUSES: readonly { value: NodeStatus; label: string }[] = [
  { value: 'all', label: 'All' },
  { value: 'active', label: 'Active' },
  { value: 'inactive', label: 'Inactive' },
  { value: 'blocked', label: 'Blocked' },
];

export interface NodeTableQuery {
  q: string;
  status: NodeStatus;
  sort: NodeSort;
  dir: SortDir;
}

export const DEFAULT_NODE_QUERY: NodeTableQuery = {
  q: '',
  status: 'all',
  sort: 'domain',
  dir: 'asc',
};

function pick<T extends string>(raw: string | null, allowed: readonly T[], fallback: T): T {
  return allowed.find((value) => value === raw) ?? fallback;
}

/** The table's query from the page URL; unknown values fall back to the defaults. */
export function nodeQueryFrom(params: URLSearchParams): NodeTableQuery {
  return {
    q: (params.get('q') ?? '').trim().slice(0, 200),
    status: pick(
      params.get('status'),
      NODE_STATUSES.map((s) => s.value),
      DEFAULT_NODE_QUERY.status,
    ),
    sort: pick(
      params.get('sort'),
      NODE_COLUMNS.map((c) => c.sort),
      DEFAULT_NODE_QUERY.sort,
    ),
    dir: pick(params.get('dir'), ['asc', 'desc'] as const, DEFAULT_NODE_QUERY.dir),
  };
}

/** `?q=…&sort=…` for a link, leaving out what is the default. */
export function nodeQueryString(query: NodeTableQuery): string {
  const params = new URLSearchParams();
  for (const key of ['q', 'status', 'sort', 'dir'] as const) {
    if (query[key] !== DEFAULT_NODE_QUERY[key]) params.set(key, query[key]);
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** Where a column header links: its sort, flipping the direction when it is already sorted by. */
export function sortLink(query: NodeTableQuery, sort: NodeSort, numeric: boolean): string {
  const dir: SortDir =
    query.sort === sort ? (query.dir === 'asc' ? 'desc' : 'asc') : numeric ? 'desc' : 'asc';
  return nodeQueryString({ ...query, sort, dir });
}
