import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS, SWARM_PATHS, signNodeRequest } from '@swarm/contract';
import { createHttpServer } from '@swarm/gateway';
import {
  ALPHA,
  BETA,
  createInteractionPair,
  type InteractionPair,
} from './interactions-harness.ts';

// Bodies as node:http delivers them. Served by node:http, the gateway reads a body straight from
// the Node request (middleware/body.ts) rather than through a fetch Request, so the body rules
// are checked here over a real socket too: caps (declared or chunked), JSON only, malformed JSON,
// zod's 400, and a signed like that gets through.

describe('bodies over a real port', () => {
  let pair: InteractionPair;
  let server: ReturnType<typeof createHttpServer>;
  let origin: string;

  beforeAll(async () => {
    pair = await createInteractionPair();
    server = createHttpServer({ fetch: pair.alpha.app.fetch });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await pair.close();
  });

  /** A node-signed POST from beta, sent over the socket. */
  async function signedPost(path: string, body: string) {
    const headers = await signNodeRequest({
      privateKey: pair.beta.node.keys.privateKey,
      method: 'POST',
      path,
      sourceDomain: BETA,
      targetDomain: ALPHA,
      body,
      now: pair.clock.now(),
    });
    return fetch(origin + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
  }

  /** A POST whose body is sent in chunks without a Content-Length. */
  function chunkedPost(path: string, chunks: string[]) {
    return new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        origin + path,
        { method: 'POST', headers: { 'content-type': 'application/json' } },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      for (const chunk of chunks) req.write(chunk);
      req.end();
    });
  }

  async function errorOf(res: Response) {
    return { status: res.status, code: ((await res.json()) as { code: string }).code };
  }

  it('receives a signed like and stores it', async () => {
    const { postIds, bob } = await pair.scene();
    const body = await pair.signed(bob, 'like', {
      postId: postIds[0]!,
      like: {
        actorHandle: bob.handle,
        actorDisplayName: 'Bob',
        actorNodeDomain: BETA,
        interactionId: 'over-the-socket',
        timestamp: pair.clock.now().toISOString(),
      },
    });
    const res = await signedPost(SWARM_PATHS.interaction('like'), JSON.stringify(body));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true, message: 'Like received' });
    const post = await pair.alpha.node.db.prisma.post.findUniqueOrThrow({
      where: { id: postIds[0]! },
    });
    expect(post.likesCount).toBe(1);
  });

  it('answers 400 with zod details for a signed body of the wrong shape', async () => {
    const res = await signedPost(
      SWARM_PATHS.interaction('like'),
      JSON.stringify({ postId: 42, like: {} }),
    );
    const body = (await res.json()) as { code: string; details: unknown[] };
    expect(res.status).toBe(400);
    expect(body.code).toBe('INVALID_REQUEST');
    expect(body.details.length).toBeGreaterThan(0);
  });

  it('answers 413 for a declared or a chunked body over the cap, and keeps serving', async () => {
    const over = JSON.stringify({ pad: 'x'.repeat(LIMITS.interactionBodyBytes) });
    expect(await errorOf(await signedPost(SWARM_PATHS.interaction('like'), over))).toEqual({
      status: 413,
      code: 'PAYLOAD_TOO_LARGE',
    });
    // No Content-Length: the cap is enforced while reading, and the answer still arrives.
    const piece = 'x'.repeat(16 * 1024);
    const chunked = await chunkedPost(SWARM_PATHS.gossip, [
      '{"pad":"',
      ...Array.from({ length: (LIMITS.gossipBodyBytes / piece.length) * 2 }, () => piece),
      '"}',
    ]);
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    // Under the cap, chunked bodies are read whole.
    const small = await chunkedPost(SWARM_PATHS.gossip, ['{"sender":', '42}']);
    expect(small.status).toBe(400);
    expect((await fetch(`${origin}${SWARM_PATHS.info}`)).status).toBe(200);
  });

  it('answers 415 for other content types and 400 for malformed JSON', async () => {
    const text = await fetch(origin + SWARM_PATHS.gossip, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{}',
    });
    expect(await errorOf(text)).toEqual({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
    const malformed = await fetch(origin + SWARM_PATHS.gossip, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"sender":',
    });
    expect(await errorOf(malformed)).toEqual({ status: 400, code: 'INVALID_REQUEST' });
  });
});
