import { errorBodySchema } from '@swarm/contract';

/** Names the CLI to the node, which writes `cli:<token name>` as the actor in its audit log. */
const CLIENT_HEADER = 'x-swarm-client';

/** What went wrong talking to a node, in words an operator can act on. */
export class AdminRequestError extends Error {
  override name = 'AdminRequestError';
}

export interface AdminClient {
  get(path: string): Promise<unknown>;
  /** POST /api/swarm/nodes with an admin action (needs the token). */
  action(body: Record<string, unknown>): Promise<unknown>;
  /** Admin API requests (needs the token); writes send a JSON body, `{}` when there is none. */
  adminGet(path: string): Promise<unknown>;
  adminPost(path: string, body?: Record<string, unknown>): Promise<unknown>;
  adminPut(path: string, body?: Record<string, unknown>): Promise<unknown>;
  adminDelete(path: string, body?: Record<string, unknown>): Promise<unknown>;
  /** An admin GET whose answer is a file (a backup): its body, unread. */
  adminDownload(path: string): Promise<ReadableStream<Uint8Array>>;
}

export function createAdminClient(opts: { node: string; token: string | undefined }): AdminClient {
  const base = opts.node.replace(/\/+$/, '');

  async function send(path: string, init: RequestInit): Promise<unknown> {
    const res = await request(path, init);
    return readJson(path, res);
  }

  async function request(path: string, init: RequestInit, timeoutMs = 60_000): Promise<Response> {
    try {
      return await fetch(`${base}${path}`, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    } catch (error) {
      const reason =
        error instanceof Error
          ? ((error.cause as Error | undefined)?.message ?? error.message)
          : String(error);
      throw new AdminRequestError(
        `cannot reach ${base} (${reason}). Is the node running? Use --node <url>.`,
      );
    }
  }

  async function readJson(path: string, res: Response): Promise<unknown> {
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      throw new AdminRequestError(
        `${base}${path} answered ${res.status} with something that is not JSON.`,
      );
    }
    if (!res.ok) {
      const body = errorBodySchema.safeParse(json);
      const detail = body.success ? `${body.data.error} (${body.data.code})` : `HTTP ${res.status}`;
      const hint =
        res.status === 401 ? ' Set SWARM_ADMIN_TOKEN (or ADMIN_TOKEN) to an admin token.' : '';
      throw new AdminRequestError(`${path}: ${detail}.${hint}`);
    }
    return json;
  }

  function authorization(): string {
    if (!opts.token) {
      throw new AdminRequestError(
        'this command needs an admin token: set SWARM_ADMIN_TOKEN (or ADMIN_TOKEN) in the environment.',
      );
    }
    return `Bearer ${opts.token}`;
  }

  /** A request with the bearer token; every write to /api/swarm/* carries a JSON body. */
  function admin(method: string, path: string, body?: Record<string, unknown>): Promise<unknown> {
    if (!opts.token) {
      throw new AdminRequestError(
        'this command needs an admin token: set SWARM_ADMIN_TOKEN (or ADMIN_TOKEN) in the environment.',
      );
    }
    const authorization = `Bearer ${opts.token}`;
    const headers = { authorization, [CLIENT_HEADER]: 'cli' };
    if (method === 'GET') return send(path, { method, headers });
    return send(path, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body ?? {}),
    });
  }

  return {
    get: (path) => send(path, { method: 'GET' }),
    action: (body) => admin('POST', '/api/swarm/nodes', body),
    adminGet: (path) => admin('GET', path),
    adminPost: (path, body) => admin('POST', path, body),
    adminPut: (path, body) => admin('PUT', path, body),
    adminDelete: (path, body) => admin('DELETE', path, body),
    async adminDownload(path) {
      // A backup is as big as the database: time for the whole download, not for an answer.
      const res = await request(
        path,
        { headers: { authorization: authorization(), [CLIENT_HEADER]: 'cli' } },
        3_600_000,
      );
      if (!res.ok || !res.body) {
        await readJson(path, res);
        throw new AdminRequestError(`${path}: HTTP ${res.status} without a body.`);
      }
      return res.body;
    },
  };
}
