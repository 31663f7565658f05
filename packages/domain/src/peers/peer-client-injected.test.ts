import { nodeInfoSchema } from '@swarm/contract';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from './peer-client.ts';
import { INFO, NOW, client, failure } from './peer-client.test-helpers.ts';
import { transportFromFetch } from './peer-transport.ts';

describe('peer client over an injected transport (in-process peers)', () => {
  const resolveHost = async (host: string) => {
    const table: Record<string, string[]> = {
      'beta.example': ['93.184.216.34'],
      'sneaky.example': ['93.184.216.34', '10.0.0.7'],
    };
    const found = table[host];
    if (!found)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found;
  };

  it('routes to the app over https and still runs the SSRF guard', async () => {
    const requests: Request[] = [];
    const transport = transportFromFetch(async (request) => {
      requests.push(request);
      return Response.json(INFO);
    });
    const peers = client({
      config: { domain: 'alpha.example', dev: false },
      transport,
      resolveHost,
    });
    expect(await peers.getJson('Beta.Example', '/api/swarm/info', nodeInfoSchema)).toMatchObject({
      ok: true,
      value: { name: 'Beta' },
    });
    expect(requests.map((r) => r.url)).toEqual(['https://beta.example/api/swarm/info']);
    expect(
      failure(await peers.getJson('sneaky.example', '/api/swarm/info', nodeInfoSchema)),
    ).toMatchObject({
      kind: 'blocked_address',
      address: '10.0.0.7',
    });
    expect(failure(await peers.getJson('gone.example', '/api/swarm/info', nodeInfoSchema))).toEqual(
      {
        kind: 'unreachable',
        domain: 'gone.example',
        reason: 'DNS lookup failed (ENOTFOUND)',
      },
    );
    expect(requests).toHaveLength(1);
  });

  it('caps streamed bodies, times out and reports thrown network errors', async () => {
    let pulls = 0;
    const endless = transportFromFetch(
      async () =>
        new Response(
          new ReadableStream<Uint8Array>({
            pull(controller) {
              pulls++;
              controller.enqueue(new Uint8Array(1024));
            },
          }),
        ),
    );
    const capped = client({
      transport: endless,
      resolveHost,
      config: { domain: 'alpha.example', dev: false },
    });
    expect(
      failure(await capped.getJson('beta.example', '/x', z.unknown(), { maxBytes: 10_000 })),
    ).toMatchObject({
      kind: 'too_large',
      maxBytes: 10_000,
    });
    expect(pulls).toBeLessThan(20);

    const hanging = transportFromFetch(() => new Promise<Response>(() => undefined));
    expect(
      failure(
        await client({ transport: hanging, resolveHost, timeoutMs: 50 }).getJson(
          'beta.example',
          '/x',
          z.unknown(),
        ),
      ),
    ).toMatchObject({ kind: 'timeout', timeoutMs: 50 });

    const broken = transportFromFetch(() =>
      Promise.reject(
        new TypeError('fetch failed', {
          cause: Object.assign(new Error('reset'), { code: 'ECONNRESET' }),
        }),
      ),
    );
    expect(
      failure(
        await client({ transport: broken, resolveHost }).getJson('beta.example', '/x', z.unknown()),
      ),
    ).toEqual({
      kind: 'unreachable',
      domain: 'beta.example',
      reason: 'ECONNRESET',
    });
  });

  it('reads the peer error body through the fetch adapter', async () => {
    const transport = transportFromFetch(async () =>
      Response.json({ error: 'Blocked.', code: 'NODE_BLOCKED' }, { status: 403 }),
    );
    expect(
      failure(await client({ transport, resolveHost }).getJson('beta.example', '/x', z.unknown())),
    ).toMatchObject({
      kind: 'http',
      status: 403,
      body: { code: 'NODE_BLOCKED' },
    });
  });
});

describe('parseRetryAfter', () => {
  it.each([
    ['120', 120],
    [' 0 ', 0],
    [new Date(NOW.getTime() + 30_500).toUTCString(), 30],
    [new Date(NOW.getTime() - 60_000).toUTCString(), 0],
    ['soon', undefined],
    ['5.5', undefined],
    ['-1', undefined],
    [null, undefined],
  ])('%s → %s', (value, expected) => {
    expect(parseRetryAfter(value, NOW)).toBe(expected);
  });
});
