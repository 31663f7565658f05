import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, nodeOnPort, type RestartableNode } from '../src/node-process.ts';

// Red team (issue 22): guessing invite codes on a node whose sign-ups need an invite. Every
// guess is a sign-up attempt, so it draws from the per-address sign-up budget
// (SWARM_SIGNUPS_PER_HOUR) before the code is looked at: a guesser gets a few tries an hour per
// address, then 429, whatever the code (a right one included); other addresses are not
// affected. Through the front door of a running node (`pnpm build` first).

const PASSWORD = 'correct horse battery staple';
const PER_HOUR = 3;

let dataDir: string;
let node: RestartableNode;
let admin: string;

const trpc = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${node.url}/trpc/${path}`, {
    method: 'POST',
    headers: { origin: node.url, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

const signUp = (handle: string, invite: string, address: string) =>
  trpc(
    'auth.signUp',
    { handle, displayName: handle, password: PASSWORD, invite },
    { 'x-forwarded-for': address },
  );

async function errorOf(response: Response) {
  const body = (await response.json()) as { error: { message: string } };
  return { status: response.status, message: body.error.message };
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'swarm-invites-'));
  node = nodeOnPort({
    dataDir,
    port: await freePort(),
    env: {
      ADDRESS_HEADER: 'X-Forwarded-For',
      XFF_DEPTH: '1',
      SWARM_SIGNUPS_PER_HOUR: String(PER_HOUR),
    },
  });
  await node.start();
  // The first account (the admin) through the sign-up form, which sets the session cookie.
  const first = await fetch(`${node.url}/signup`, {
    method: 'POST',
    headers: { accept: 'text/html', origin: node.url, 'x-forwarded-for': '192.0.2.1' },
    body: new URLSearchParams({ handle: 'root', displayName: 'root', password: PASSWORD }),
    redirect: 'manual',
  });
  expect(first.status).toBe(303);
  const cookie = /swarm_session=([^;]+)/.exec(first.headers.get('set-cookie') ?? '');
  admin = `swarm_session=${cookie![1]}`;
  const mode = await trpc('moderation.admin.setMode', { mode: 'invite' }, { cookie: admin });
  expect(mode.status).toBe(200);
});

afterAll(async () => {
  await node?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('invite codes cannot be guessed quickly', () => {
  it('a few wrong codes per address, then 429 for any code; another address still signs up', async () => {
    const guesser = '198.51.100.9';
    for (let i = 0; i < PER_HOUR; i++) {
      const wrong = await errorOf(
        await signUp(`guess${i}`, `guess-${i}-aaaaaaaaaaaaaaaa`, guesser),
      );
      expect(wrong).toMatchObject({ status: 403, message: expect.stringMatching(/invite/) });
    }
    const invite = (await (
      await trpc('moderation.admin.createInvite', { maxUses: 2 }, { cookie: admin })
    ).json()) as { result: { data: { code: string } } };
    const code = invite.result.data.code;

    // The budget is spent: even the right code is refused from this address, and says when.
    const spent = await signUp('guessright', code, guesser);
    expect(spent.status).toBe(429);
    expect(Number(spent.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await errorOf(spent)).message).toMatch(/Too many sign-ups/);
    // 40 more guesses in parallel change nothing and make nothing.
    const flood = await Promise.all(
      Array.from({ length: 40 }, (_, i) => signUp(`flood${i}`, `flood-${i}`, guesser)),
    );
    expect(flood.map((r) => r.status)).toEqual(Array(40).fill(429));

    const other = await signUp('newcomer', code, '203.0.113.20');
    expect(other.status).toBe(200);
    // No account was made by the guesses.
    for (const handle of ['guess0', 'guessright', 'flood0']) {
      const profile = await fetch(`${node.url}/api/swarm/users/${handle}?limit=0`);
      expect(profile.status, handle).toBe(404);
    }
  });
});
