import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startNodeProcess, withMigratedDataDir } from '@swarm/testnet';

// SIGTERM to the real process (`node dist/main.js --with-web`, as `pnpm start` and the Docker
// image run it) while it is under load: requests it has accepted are answered in full, new
// connections are refused, the database closes and the process exits 0.

/** A POST whose headers are sent at once and whose body only when told: an accepted, slow request. */
interface SlowRequest {
  /** Resolves once the server has parsed the headers and handed the request to the app. */
  accepted: Promise<void>;
  /** Sends the rest of the body; resolves with everything the server answered. */
  finish(): Promise<string>;
}

function slowPost(port: number, path: string, body: string): SlowRequest {
  const socket: Socket = connect(port, '127.0.0.1');
  let received = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => (received += chunk));
  const ended = new Promise<void>((resolve, reject) => {
    socket.once('end', resolve);
    socket.once('close', () => resolve());
    socket.once('error', reject);
  });
  const bytes = Buffer.byteLength(body);
  const split = Math.floor(body.length / 2);
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${bytes}\r\nExpect: 100-continue\r\n\r\n${body.slice(0, split)}`,
  );
  // Node answers "100 Continue" when it hands the request to the app (no checkContinue listener).
  const accepted = new Promise<void>((resolve, reject) => {
    const check = () => {
      if (received.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) {
        socket.off('data', check);
        resolve();
      }
    };
    socket.on('data', check);
    socket.once('error', reject);
  });
  return {
    accepted,
    finish: async () => {
      socket.end(body.slice(split));
      await ended;
      return received.slice('HTTP/1.1 100 Continue\r\n\r\n'.length);
    },
  };
}

/** Status and body of one raw HTTP/1.1 answer, checking that the body is complete. */
function parseAnswer(raw: string): { status: number; headers: string; body: string } {
  const end = raw.indexOf('\r\n\r\n');
  expect(end).toBeGreaterThan(0);
  const headers = raw.slice(0, end);
  const body = raw.slice(end + 4);
  const length = /\r\ncontent-length: (\d+)/i.exec(headers);
  expect(length, `no Content-Length in ${headers}`).not.toBeNull();
  expect(Buffer.byteLength(body, 'latin1')).toBe(Number(length?.[1]));
  return { status: Number(raw.slice(9, 12)), headers, body };
}

/** What one request of a keep-alive client got: a whole answer, or the error's code. */
type Outcome =
  | { answered: true; status: number; connectionClose: boolean }
  | { answered: false; code: string; reusedSocket: boolean };

/** One GET through `agent` (node:http's keep-alive client), read to its end. */
function keepAliveGet(agent: http.Agent, url: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent }, (res) => {
      res.resume();
      res.once('end', () =>
        resolve({
          answered: true,
          status: res.statusCode ?? 0,
          connectionClose: res.headers.connection === 'close',
        }),
      );
      res.once('aborted', () =>
        resolve({ answered: false, code: 'ABORTED', reusedSocket: req.reusedSocket }),
      );
    });
    req.once('error', (error: NodeJS.ErrnoException) =>
      resolve({
        answered: false,
        code: error.code ?? error.message,
        reusedSocket: req.reusedSocket,
      }),
    );
  });
}

describe('SIGTERM under load', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'swarm-shutdown-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('answers every accepted request, refuses new ones, closes the database and exits 0', async () => {
    const port = await freePort();
    const node = await startNodeProcess(
      await withMigratedDataDir({
        PORT: String(port),
        DATA_DIR: dataDir,
        SWARM_DEV: '1',
        SWARM_DRAIN_TIMEOUT_MS: '30000',
      }),
    );
    const base = `http://127.0.0.1:${port}`;
    try {
      // A stream of requests on keep-alive connections, to the gateway and to the web app, that
      // runs until the node stops taking connections.
      const outcomes = { answered: 0, refused: 0, truncated: [] as string[] };
      let streaming = true;
      const stream = async (path: string) => {
        while (streaming) {
          let res: Response;
          try {
            res = await fetch(base + path);
          } catch {
            // Refused, or a keep-alive connection closed while idle: never taken by the app.
            outcomes.refused++;
            return;
          }
          try {
            const text = await res.text();
            if (res.status !== 200) outcomes.truncated.push(`${path}: ${res.status} ${text}`);
            else outcomes.answered++;
          } catch (error) {
            outcomes.truncated.push(`${path}: ${String(error)}`);
          }
        }
      };
      const streams = ['/api/swarm/info', '/', '/api/swarm/info', '/'].map(stream);

      // Requests the app has taken whose bodies are still on their way.
      const slow = Array.from({ length: 5 }, () => slowPost(port, '/api/swarm/announce', '{}'));
      await Promise.all(slow.map((s) => s.accepted));
      // The stream is flowing (pages and info answered) when the signal comes.
      await expect.poll(() => outcomes.answered, { timeout: 30_000 }).toBeGreaterThan(4);

      const exited = once(node.child, 'exit') as Promise<[number | null, string | null]>;
      node.child.kill('SIGTERM');
      await expect.poll(() => node.output(), { timeout: 10_000 }).toContain('draining requests');
      // No new connections once draining: the listening socket is closed.
      const probe = connect(port, '127.0.0.1');
      const [refusal] = (await once(probe, 'error')) as [NodeJS.ErrnoException];
      expect(refusal.code).toBe('ECONNREFUSED');

      // The slow requests complete after the signal, and each gets its whole answer.
      const answers = await Promise.all(slow.map((s) => s.finish()));
      for (const raw of answers) {
        const { status, headers, body } = parseAnswer(raw);
        expect(status).toBe(400);
        expect(headers.toLowerCase()).toContain('connection: close');
        expect(JSON.parse(body)).toMatchObject({ code: expect.any(String) });
      }

      const [code] = await exited;
      streaming = false;
      await Promise.all(streams);
      expect(code).toBe(0);
      expect(outcomes.truncated).toEqual([]);
      const out = node.output();
      const drained = /drained in \d+ ms: (\d+) requests answered, none cut/.exec(out);
      expect(drained, out).not.toBeNull();
      // At least the slow requests were answered while draining.
      expect(Number(drained?.[1])).toBeGreaterThanOrEqual(slow.length);
      expect(out).toContain('database closed, exiting');
    } finally {
      await node.stop();
    }
  });

  it('loses no request on kept-alive connections: each gets its answer with Connection: close', async () => {
    const port = await freePort();
    const node = await startNodeProcess(
      await withMigratedDataDir({
        PORT: String(port),
        DATA_DIR: join(dataDir, 'keep-alive'),
        SWARM_DEV: '1',
        SWARM_DRAIN_TIMEOUT_MS: '30000',
      }),
    );
    const base = `http://127.0.0.1:${port}`;
    // 20 client sockets kept alive, each sending its next request as soon as the last is read:
    // a connection is idle only between two requests when the signal comes.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 20 });
    try {
      const outcomes: Outcome[] = [];
      let running = true;
      const loop = async (path: string) => {
        while (running) {
          const outcome = await keepAliveGet(agent, base + path);
          outcomes.push(outcome);
          // Refused: the node no longer listens, so this client is done.
          if (!outcome.answered) return;
        }
      };
      const loops = Array.from({ length: 20 }, (_, i) =>
        loop(i % 4 === 0 ? '/' : '/api/swarm/info'),
      );
      await expect
        .poll(() => outcomes.filter((o) => o.answered).length, { timeout: 60_000 })
        .toBeGreaterThan(200);

      const exited = once(node.child, 'exit') as Promise<[number | null, string | null]>;
      node.child.kill('SIGTERM');
      const [code] = await exited;
      running = false;
      await Promise.all(loops);
      expect(code).toBe(0);

      const failed = outcomes.filter((o) => !o.answered);
      // A refused connection is a clean "not here any more"; a reset, a hang-up or a cut
      // answer is a request the node took and lost.
      expect(failed.filter((o) => o.code !== 'ECONNREFUSED')).toEqual([]);
      const answered = outcomes.filter((o) => o.answered);
      expect(answered.filter((o) => o.status !== 200)).toEqual([]);
      // Requests that came on open connections during the drain were answered and closed them.
      const closing = answered.filter((o) => o.connectionClose).length;
      expect(closing).toBeGreaterThan(0);
      const out = node.output();
      const drained = /drained in \d+ ms: (\d+) requests answered, none cut/.exec(out);
      expect(drained, out).not.toBeNull();
      expect(Number(drained?.[1])).toBeGreaterThanOrEqual(closing);
    } finally {
      agent.destroy();
      await node.stop();
    }
  }, 180_000);

  it('bounds the drain: at SWARM_DRAIN_TIMEOUT_MS it cuts what is left, says so, and still exits 0', async () => {
    const port = await freePort();
    const node = await startNodeProcess(
      await withMigratedDataDir({
        PORT: String(port),
        DATA_DIR: dataDir,
        SWARM_DEV: '1',
        SWARM_DRAIN_TIMEOUT_MS: '300',
      }),
    );
    try {
      // Two requests whose bodies never come.
      const stuck = [0, 1].map(() => slowPost(port, '/api/swarm/announce', '{"domain":"x"}'));
      await Promise.all(stuck.map((s) => s.accepted));
      const exited = once(node.child, 'exit') as Promise<[number | null, string | null]>;
      node.child.kill('SIGTERM');
      const [code] = await exited;
      expect(code).toBe(0);
      expect(node.output()).toMatch(/drain timed out after \d+ ms: 0 requests answered, 2 cut/);
      expect(node.output()).toContain('database closed, exiting');
    } finally {
      await node.stop();
    }
  });
});
