import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  NUL_REFUSED,
  SWARM_PATHS,
  exportEncryptionPublicKey,
  formatTimestamp,
  generateEncryptionKeyPair,
  sealMessage,
  signNodeRequest,
  signReceipt,
} from '@swarm/contract';
import {
  ALPHA,
  BETA,
  createInteractionPair,
  paths,
  snapshot,
  type InteractionPair,
  type Scene,
} from './interactions-harness.ts';

// Fuzzing every interaction endpoint, and the direct-message endpoints, through the front door, node-signed so that the bodies
// reach validation and the service: arbitrary JSON, well-formed bodies with one member of the
// wrong type, huge strings, deep nesting, bytes that are not JSON. Every answer must be a 4xx
// with the error body, and nothing may change in the database.

let t: InteractionPair;
let s: Scene;
/** An encryption key for sealing (the node never opens a message, so any key does). */
let encryptionKey: string;
/** A message alice on alpha sent to bob on beta, for bob's receipts. */
let sentMessageId: string;

const fuzzPaths = {
  ...paths,
  message: SWARM_PATHS.messages,
  receipt: SWARM_PATHS.messageReceipts,
};

beforeAll(async () => {
  t = await createInteractionPair();
  s = await t.scene();
  encryptionKey = await exportEncryptionPublicKey((await generateEncryptionKeyPair()).publicKey);
  const sent = await t.alpha.node.db.prisma.message.create({
    data: {
      id: crypto.randomUUID(),
      senderAddress: `${s.alice}@${ALPHA}`,
      senderDid: 'did:key:zDnaeUnusedHere',
      recipientAddress: `${s.bob.handle}@${BETA}`,
      createdAt: t.clock.now(),
      envelope: '{}',
      localSenderId: s.aliceId,
    },
  });
  sentMessageId = sent.id;
});
afterAll(async () => {
  await t.close();
});

const RUNS = 40;
type Path = (typeof fuzzPaths)[keyof typeof fuzzPaths];

/** A valid, user-signed body for each endpoint; fuzzing mutates it after signing. */
async function validBody(path: Path, n: number): Promise<Record<string, unknown>> {
  const now = formatTimestamp(t.clock.now());
  const [postId] = s.postIds as [string];
  const bob = s.bob;
  const actor = {
    actorHandle: bob.handle,
    actorDisplayName: 'Bob',
    actorAvatarUrl: `https://${BETA}/a.png`,
    actorNodeDomain: BETA,
    interactionId: `fuzz-${n}`,
    timestamp: now,
  };
  const bodies: Record<
    (typeof paths)[keyof typeof paths],
    [Parameters<InteractionPair['signed']>[1], Record<string, unknown>]
  > = {
    [paths.like]: ['like', { postId, like: actor }],
    [paths.unlike]: [
      'unlike',
      { postId, unlike: { ...actor, actorDisplayName: undefined, actorAvatarUrl: undefined } },
    ],
    [paths.repost]: ['repost', { postId, repost: { ...actor, repostId: `r-${n}` } }],
    [paths.follow]: [
      'follow',
      {
        targetHandle: s.alice,
        follow: {
          followerHandle: bob.handle,
          followerDisplayName: 'Bob',
          followerAvatarUrl: '',
          followerBio: 'bio',
          followerNodeDomain: BETA,
          interactionId: `fuzz-${n}`,
          timestamp: now,
        },
      },
    ],
    [paths.unfollow]: [
      'unfollow',
      {
        targetHandle: s.alice,
        unfollow: {
          followerHandle: bob.handle,
          followerNodeDomain: BETA,
          interactionId: `fuzz-${n}`,
          timestamp: now,
        },
      },
    ],
    [paths.mention]: [
      'mention',
      { mentionedHandle: s.alice, mention: { ...actor, postId: `p-${n}`, postContent: 'hi' } },
    ],
    [paths.reply]: [
      'reply',
      {
        postId,
        reply: {
          id: `reply-${n}`,
          content: 'hello',
          createdAt: now,
          author: { handle: bob.handle, displayName: 'Bob', avatarUrl: '' },
          nodeDomain: BETA,
          mediaUrls: [],
        },
      },
    ],
  };
  if (path === fuzzPaths.message) {
    const envelope = await sealMessage({
      sender: `${bob.handle}@${BETA}`,
      senderDid: bob.did,
      recipient: `${s.alice}@${ALPHA}`,
      createdAt: now,
      text: `fuzz ${n}`,
      recipientPublicKey: encryptionKey,
      senderPublicKey: encryptionKey,
      signingKey: bob.privateKey,
    });
    return JSON.parse(JSON.stringify(envelope)) as Record<string, unknown>;
  }
  if (path === fuzzPaths.receipt) {
    const receipt = await signReceipt({
      signingKey: bob.privateKey,
      messageId: sentMessageId,
      status: n % 2 ? 'delivered' : 'read',
      sender: `${s.alice}@${ALPHA}`,
      recipient: `${bob.handle}@${BETA}`,
      recipientDid: bob.did,
      at: now,
    });
    return JSON.parse(JSON.stringify(receipt)) as Record<string, unknown>;
  }
  const [action, body] = bodies[path as (typeof paths)[keyof typeof paths]]!;
  return JSON.parse(JSON.stringify(await t.signed(bob, action, body))) as Record<string, unknown>;
}

/** Every leaf path of a JSON value, e.g. ['like', 'timestamp']. */
function leafPaths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) {
    return value.length === 0 ? [prefix] : value.flatMap((v, i) => leafPaths(v, [...prefix, i]));
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    return entries.length === 0
      ? [prefix]
      : entries.flatMap(([k, v]) => leafPaths(v, [...prefix, k]));
  }
  return [prefix];
}

function replaceAt(value: unknown, path: (string | number)[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<
    string | number,
    unknown
  >;
  copy[head] = replaceAt(copy[head], rest, replacement);
  return copy;
}

/** JSON text of `depth` nested arrays or objects, written directly (too deep to stringify). */
function nestedJson(depth: number, asObject: boolean): string {
  return asObject
    ? '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)
    : '['.repeat(depth) + '1' + ']'.repeat(depth);
}

async function post(path: Path, text: string): Promise<Response> {
  const headers = await signNodeRequest({
    privateKey: t.beta.node.keys.privateKey,
    method: 'POST',
    path,
    sourceDomain: BETA,
    targetDomain: ALPHA,
    body: text,
    now: t.clock.now(),
  });
  return t.alpha.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: text,
  });
}

async function expectClientError(response: Response): Promise<number> {
  const text = await response.text();
  expect(response.status, text.slice(0, 300)).toBeGreaterThanOrEqual(400);
  expect(response.status, text.slice(0, 300)).toBeLessThan(500);
  const body = JSON.parse(text) as { error: unknown; code: unknown };
  expect(typeof body.error).toBe('string');
  expect(body.code).toMatch(/^[A-Z][A-Z0-9_]*$/);
  return response.status;
}

const wrongValue = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 40 }),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
  fc.constantFrom(
    '',
    ' ',
    'x'.repeat(60_000),
    '\u0000',
    'did:key:zDn',
    '../../etc',
    '2026-11-22T12:00:00Z',
  ),
);

let counter = 0;

describe.each(Object.entries(fuzzPaths))('fuzzing %s', (_kind, path) => {
  it('answers 4xx to anything malformed and changes nothing', async () => {
    const before = await snapshotWithMessages();
    const statuses = new Set<number>();

    // Arbitrary JSON values (objects with arbitrary members, arrays, scalars).
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 4 }), async (value) => {
        await expectClientError(await post(path, JSON.stringify(value)));
      }),
      { numRuns: RUNS },
    );

    // A valid signed body with one member replaced by something else (the signature no longer
    // matches, so even a still well-typed value must be refused).
    await fc.assert(
      fc.asyncProperty(fc.nat(), wrongValue, async (pick, replacement) => {
        const body = await validBody(path, ++counter);
        const leaves = leafPaths(body);
        const at = leaves[pick % leaves.length]!;
        const current = at.reduce<unknown>(
          (v, k) => (v as Record<string | number, unknown>)[k],
          body,
        );
        fc.pre(JSON.stringify(current) !== JSON.stringify(replacement));
        statuses.add(
          await expectClientError(
            await post(path, JSON.stringify(replaceAt(body, at, replacement))),
          ),
        );
      }),
      // Always among the runs: a well-typed change (reaches the user signature check) and a
      // wrongly typed one (refused by validation).
      {
        numRuns: RUNS,
        examples: [
          [2, 'Mallory'],
          [0, 42],
        ],
      },
    );

    // Huge strings and deep nesting, alone or inside an otherwise valid body. The monsters are
    // built inside the property (fast-check would print them, recursively, on failure).
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('string', 'arrays', 'objects'),
        fc.integer({ min: 10, max: 120_000 }),
        fc.boolean(),
        async (kind, size, inside) => {
          const monster =
            kind === 'string'
              ? JSON.stringify('y'.repeat(size))
              : nestedJson(Math.min(size, 30_000), kind === 'objects');
          const text = inside
            ? `${JSON.stringify(await validBody(path, ++counter)).slice(0, -1)},"extra":${monster}}`
            : monster;
          await expectClientError(await post(path, text));
        },
      ),
      { numRuns: RUNS },
    );

    // A well-formed body whose user signature is garbage reaches the signature check: 401.
    const forged = { ...(await validBody(path, ++counter)), signature: 'AAAA' };
    statuses.add(await expectClientError(await post(path, JSON.stringify(forged))));

    // Bytes that are not JSON at all.
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 200 }), async (text) => {
        fc.pre(!isJson(text));
        await expectClientError(await post(path, text));
      }),
      { numRuns: RUNS },
    );

    expect([...statuses].sort()).toEqual(expect.arrayContaining([400, 401]));
    expect(await snapshotWithMessages()).toEqual(before);
  }, 180_000);
});

async function snapshotWithMessages() {
  const prisma = t.alpha.node.db.prisma;
  return {
    ...(await snapshot(t.alpha)),
    messages: await prisma.message.findMany({ orderBy: { id: 'asc' } }),
  };
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

describe('a NUL character (U+0000) anywhere', () => {
  it.each(Object.values(fuzzPaths))('%s: 400 before anything else', async (path) => {
    const before = await snapshotWithMessages();
    const body = await validBody(path, ++counter);
    for (const text of [
      JSON.stringify({ ...body, signature: 'a\u0000b' }),
      JSON.stringify({ ...body, 'x\u0000': 1 }),
    ]) {
      const res = await post(path, text);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'INVALID_REQUEST', error: NUL_REFUSED });
    }
    expect(await snapshotWithMessages()).toEqual(before);
  });
});

// Last, so it changes nothing the fuzzing compares: the bodies the fuzzing mutates are valid as
// they are (the refusals above come from the mutations, not from a broken base).
describe('the unmutated bodies', () => {
  it.each([fuzzPaths.message, fuzzPaths.receipt, fuzzPaths.like])('%s: accepted', async (path) => {
    const res = await post(path, JSON.stringify(await validBody(path, ++counter)));
    expect(res.status, await res.text()).toBe(200);
  });
});
