import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import type { AuthServices } from '@swarm/auth';
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { ERROR_STATUS } from '@swarm/contract';
import { appRouter, TRPC_CODE } from '../src/index.ts';
import { browserKey, createNodeWithAuth, type TestNode } from './harness.ts';

// The tRPC edge of the one error model, over HTTP as a browser sees it: the refusal's own code
// (`data.errorCode`) and the input it is about (`data.field`) survive the round trip, next to
// tRPC's code name and the code's HTTP status.

const PASSWORD = 'correct horse battery';
let t: TestNode;
let auth: AuthServices;

beforeAll(async () => {
  ({ t, auth } = await createNodeWithAuth());
});
afterAll(() => t.close());

interface TrpcErrorAnswer {
  status: number;
  error: {
    message: string;
    data: { code: string; httpStatus: number; errorCode: string; field?: string };
  };
}

/** POSTs a mutation (or GETs a query) to /trpc as an anonymous browser. */
async function call(path: string, input: unknown, method: 'POST' | 'GET' = 'POST') {
  const url =
    method === 'GET'
      ? `http://node.test/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`
      : `http://node.test/trpc/${path}`;
  const res = await fetchRequestHandler({
    endpoint: '/trpc',
    router: appRouter,
    req: new Request(url, {
      method,
      headers: { 'content-type': 'application/json' },
      body: method === 'POST' ? JSON.stringify(input) : undefined,
    }),
    createContext: () => ({ node: t.node, auth, session: null, clientIp: '192.0.2.7' }),
  });
  return { status: res.status, ...((await res.json()) as Omit<TrpcErrorAnswer, 'status'>) };
}

describe('tRPC errors carry the refusal', () => {
  it('maps every contract code to the tRPC code of the same HTTP status', () => {
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      const trpc = new TRPCError({ code: TRPC_CODE[code as keyof typeof TRPC_CODE] });
      expect(getHTTPStatusCodeFromError(trpc), code).toBe(status);
    }
  });

  it('a taken handle: HANDLE_TAKEN about `handle`; a key registered twice: KEY_CONFLICT about `did`', async () => {
    const key = await browserKey();
    const first = await call('auth.signUp', {
      handle: 'carol',
      displayName: 'Carol',
      password: PASSWORD,
      key,
    });
    expect(first.status).toBe(200);

    const taken = await call('auth.signUp', {
      handle: 'CAROL',
      displayName: '',
      password: PASSWORD,
    });
    expect(taken.status).toBe(409);
    expect(taken.error.message).toBe('The handle "carol" is taken.');
    expect(taken.error.data).toMatchObject({
      code: 'CONFLICT',
      httpStatus: 409,
      errorCode: 'HANDLE_TAKEN',
      field: 'handle',
    });

    // The database's unique index on the did refuses it (Prisma P2002 on users_did_key).
    const sameKey = await call('auth.signUp', {
      handle: 'dave',
      displayName: '',
      password: PASSWORD,
      key,
    });
    expect(sameKey.status).toBe(409);
    expect(sameKey.error.data).toMatchObject({ errorCode: 'KEY_CONFLICT', field: 'did' });
    expect(await t.node.db.prisma.user.count({ where: { handle: 'dave' } })).toBe(0);
  });

  it('a wrong password is UNAUTHORIZED about `password`; a bad new handle INVALID_REQUEST about `handle`', async () => {
    const wrong = await call('auth.logIn', { handle: 'carol', password: 'not the password' });
    expect(wrong.status).toBe(401);
    expect(wrong.error.data).toMatchObject({ errorCode: 'UNAUTHORIZED', field: 'password' });

    const bad = await call('auth.signUp', {
      handle: 'no spaces',
      displayName: '',
      password: PASSWORD,
    });
    expect(bad.status).toBe(400);
    expect(bad.error.data).toMatchObject({ errorCode: 'INVALID_REQUEST', field: 'handle' });
  });

  it('input validation names the member it refused', async () => {
    const tooLong = await call('auth.logIn', { handle: 'x'.repeat(300), password: PASSWORD });
    expect(tooLong.status).toBe(400);
    expect(tooLong.error.data).toMatchObject({
      code: 'BAD_REQUEST',
      errorCode: 'INVALID_REQUEST',
      field: 'handle',
    });
  });

  it('USER_NOT_FOUND stays USER_NOT_FOUND (tRPC says NOT_FOUND)', async () => {
    const missing = await call('profiles.get', { address: 'nobody-here', limit: 0 }, 'GET');
    expect(missing.status).toBe(404);
    expect(missing.error.data).toMatchObject({ code: 'NOT_FOUND', errorCode: 'USER_NOT_FOUND' });
    expect(missing.error.data.field).toBeUndefined();
  });
});
