import { errorBodySchema, parseWith } from '@swarm/contract';
import type { z } from 'zod';

/** Names the CLI to the node, which writes `cli:<token name>` as the actor in its audit log. */
const CLIENT_HEADER = 'x-swarm-client';

/** What went wrong talking to a node, in words an operator can act on. */
export class AdminRequestError extends Error {
  override name = 'AdminRequestError';
}

export interface AdminClient {
  /** A public GET, its answer parsed with `schema` (the contract's). */
  get<S extends z.ZodType>(path: string, schema: S): Promise<z.output<S>>;
  /** POST /api/swarm/nodes with an admin action (needs the token). */
  action(body: Record<string, unknown>): Promise<unknown>;
  /**
   * Admin API requests (needs the token); writes send a JSON body, `{}` when there is none. An
   * answer the CLI reads is parsed with the contract's `schema`: whatever a node (or whatever
   * answers at --node) sends, the CLI prints what it checked, or a clear error.
   */
  adminGet<S extends z.ZodType>(path: string, schema: S): Promise<z.output<S>>;
  adminPost(path: string, body?: Record<string, unknown>): Promise<unknown>;
  /** A POST whose answer the CLI reads, parsed with `schema`. */
  adminPostFor<S extends z.ZodType>(
    path: string,
    body: Record<string, unknown>,
    schema: S,
  ): Promise<z.output<S>>;
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

  /** The answer as the contract describes it, or an error naming what did not fit. */
  function answer<S extends z.ZodType>(path: string, schema: S, json: unknown): z.output<S> {
    const parsed = parseWith(schema, json);
    if (parsed.ok) return parsed.value;
    throw new AdminRequestError(
      `${base}${path} answered something this CLI cannot read (${parsed.reason}). Is --node a ` +
        'Swarm node of the same version?',
    );
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
    get: async (path, schema) => answer(path, schema, await send(path, { method: 'GET' })),
    action: (body) => admin('POST', '/api/swarm/nodes', body),
    adminGet: async (path, schema) => answer(path, schema, await admin('GET', path)),
    adminPost: (path, body) => admin('POST', path, body),
    adminPostFor: async (path, body, schema) =>
      answer(path, schema, await admin('POST', path, body)),
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
