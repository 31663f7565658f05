import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import pg from 'pg';
import type { NodeProcess } from './node-process.ts';

// Helpers for tests that run the production pair the way docker-compose.yml does (the gateway
// alone, the web app alone, one Postgres database) and for cutting that database away.

// The web app alone, as compose's `web` service runs it: one definition, in node-process.ts.
export { startWebProcess } from './node-process.ts';

/** The JSON log lines a process printed (other lines, e.g. adapter-node's, are skipped). */
export function jsonLines(output: string): Record<string, unknown>[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}

/** An empty database of its own on a Postgres server; `drop()` removes it. */
export async function scratchDatabase(serverUrl: string): Promise<{
  url: string;
  drop: () => Promise<void>;
}> {
  const name = `swarm_ops_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * A TCP proxy in front of a server (the nodes' Postgres): `cut()` closes the listener and every
 * connection through it, so the node sees its database go away (refused connections, broken
 * sockets) without anyone else's database being touched; `restore()` listens again on the same
 * port.
 */
export interface TcpProxy {
  port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const listen = async () => {
    const s = createServer((client) => {
      const upstream = connect(target.port, target.host);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream);
      upstream.pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    s.listen(port, '127.0.0.1');
    await once(s, 'listening');
    port = (s.address() as AddressInfo).port;
    server = s;
  };
  const cut = async () => {
    const s = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  await listen();
  return {
    get port() {
      return port;
    },
    cut,
    restore: listen,
    close: cut,
  };
}

/** One SQL statement on a database of its own connection (for tests that change state behind a node). */
export async function sql(url: string, text: string, params: unknown[] = []): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text, params);
  } finally {
    await client.end();
  }
}

/**
 * The first JSON log line of a process matching `predicate`, waiting for it to arrive (its
 * output comes through a pipe, a moment after the process answered): event-driven, no polling.
 */
export async function waitForLogLine(
  proc: NodeProcess,
  predicate: (line: Record<string, unknown>) => boolean,
  timeoutMs = 10_000,
): Promise<Record<string, unknown>> {
  const found = () => jsonLines(proc.output()).find(predicate);
  const now = found();
  if (now) return now;
  return new Promise((resolve, reject) => {
    const streams = [proc.child.stdout, proc.child.stderr].filter((s) => s !== null);
    const onData = () => {
      // The NodeProcess's own listener appended the chunk before this one runs.
      setImmediate(() => {
        const line = found();
        if (line) done(() => resolve(line));
      });
    };
    const timer = setTimeout(
      () =>
        done(() => reject(new Error(`no such log line within ${timeoutMs} ms:\n${proc.output()}`))),
      timeoutMs,
    );
    function done(settle: () => void) {
      clearTimeout(timer);
      for (const s of streams) s.off('data', onData);
      settle();
    }
    for (const s of streams) s.on('data', onData);
  });
}
