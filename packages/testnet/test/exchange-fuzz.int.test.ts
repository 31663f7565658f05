import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SWARM_PATHS,
  adminActionSchema,
  announcementSchema,
  errorBodySchema,
  gossipRequestSchema,
} from '@swarm/contract';
import { createTestNode, type TestNode } from './harness.ts';

// Fuzzing the node-exchange endpoints (announce, gossip) and the admin action endpoint through
// the front door: arbitrary JSON, wrong types, huge strings, deep nesting, bytes that are not
// JSON, wrong content types. Only bodies that the contract schema refuses are generated (a valid
// unsigned announce or gossip is a legitimate hint that writes a row). Every answer must be a
// 4xx with the error body, and no registry row may change.

const ADMIN_TOKEN = 'fuzz-admin-token-0123456789abcdef';
const RUNS = 50;
const ACCEPTED = [400, 401, 413, 415];

let t: TestNode;
beforeAll(async () => {
  t = await createTestNode({
    SWARM_DOMAIN: 'alpha.test',
    ADMIN_TOKEN,
    SWARM_RATE_LIMIT_PER_MIN: '1000000',
  });
});
afterAll(async () => {
  await t.close();
});

async function counts() {
  const p = t.node.db.prisma;
  const [nodes, handles, seeds, logs] = await Promise.all([
    p.swarmNode.count(),
    p.handleRegistryEntry.count(),
    p.swarmSeed.count(),
    p.swarmSyncLog.count(),
  ]);
  return { nodes, handles, seeds, logs };
}

const endpoints = [
  { name: 'announce', path: SWARM_PATHS.announce, schema: announcementSchema, admin: false },
  { name: 'gossip', path: SWARM_PATHS.gossip, schema: gossipRequestSchema, admin: false },
  { name: 'admin nodes', path: SWARM_PATHS.nodes, schema: adminActionSchema, admin: true },
] as const;

/** Well-formed bodies, mutated below into invalid ones. */
const templates: Record<(typeof endpoints)[number]['name'], Record<string, unknown>> = {
  announce: {
    domain: 'beta.test',
    name: 'Beta',
    description: '',
    publicKey: '',
    softwareVersion: '1',
    userCount: 1,
    postCount: 1,
    capabilities: ['gossip'],
    timestamp: '2026-11-22T12:00:00.000Z',
  },
  gossip: {
    sender: 'beta.test',
    nodes: [{ domain: 'gamma.test', name: 'G', lastSeenAt: '2026-11-22T12:00:00.000Z' }],
    handles: [],
    timestamp: '2026-11-22T12:00:00.000Z',
  },
  'admin nodes': { action: 'addSeed', domain: 'beta.test', priority: 1 },
};

const wrongType = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.string(),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 3 }),
);

/** `depth` levels of alternating objects and arrays around `leaf`, as text (too deep for JSON.stringify). */
function deepNest(depth: number, leaf: string): string {
  let open = '';
  let close = '';
  for (let i = 0; i < depth; i++) {
    open += i % 2 ? '[' : '{"a":';
    close = (i % 2 ? ']' : '}') + close;
  }
  return open + leaf + close;
}

/** Raw request bodies (text) and the content type they are sent with. */
function bodies(name: keyof typeof templates): fc.Arbitrary<{ text: string; type: string }> {
  const template = templates[name];
  const keys = Object.keys(template);
  const json = (value: unknown) => ({ text: JSON.stringify(value), type: 'application/json' });
  return fc.oneof(
    // Arbitrary JSON.
    fc.jsonValue({ maxDepth: 4 }).map(json),
    // One member of the wrong type, or missing.
    fc.tuple(fc.constantFrom(...keys), wrongType, fc.boolean()).map(([key, value, drop]) => {
      const body: Record<string, unknown> = { ...template };
      if (drop) delete body[key];
      else body[key] = value;
      return json(body);
    }),
    // Huge strings in a member.
    fc
      .tuple(fc.constantFrom(...keys), fc.integer({ min: 10_000, max: 400_000 }))
      .map(([key, size]) => json({ ...template, [key]: 'x'.repeat(size) })),
    // Deep nesting, in place of the body or of a member.
    fc
      .tuple(fc.constantFrom(...keys), fc.integer({ min: 50, max: 5_000 }), fc.boolean())
      .map(([key, depth, whole]) => {
        const nested = deepNest(depth, '"x"');
        const member = JSON.stringify({ ...template, [key]: 0 }).replace(
          `${JSON.stringify(key)}:0`,
          `${JSON.stringify(key)}:${nested}`,
        );
        return { text: whole ? nested : member, type: 'application/json' };
      }),
    // Not JSON at all, or the right JSON with the wrong content type.
    fc.string({ maxLength: 200 }).map((text) => ({ text: `{${text}`, type: 'application/json' })),
    fc
      .constantFrom('text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data')
      .map((type) => ({ text: JSON.stringify(template), type })),
  );
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function isValid(schema: (typeof endpoints)[number]['schema'], text: string, type: string) {
  if (type !== 'application/json') return false;
  try {
    return schema.safeParse(JSON.parse(text)).success;
  } catch {
    return false;
  }
}

describe('fuzzing node exchange and admin endpoints', () => {
  for (const endpoint of endpoints) {
    const auths = endpoint.admin ? [true, false] : [false];
    for (const withToken of auths) {
      const label = endpoint.admin
        ? `${endpoint.name} (${withToken ? 'token' : 'no token'})`
        : endpoint.name;
      it(
        `${label}: only 4xx with the error body, nothing changes`,
        { timeout: 60_000 },
        async () => {
          const before = await counts();
          await fc.assert(
            fc.asyncProperty(
              bodies(endpoint.name).filter(
                ({ text, type }) => !isValid(endpoint.schema, text, type),
              ),
              async ({ text, type }) => {
                const res = await t.request(endpoint.path, {
                  method: 'POST',
                  headers: {
                    'content-type': type,
                    ...(withToken ? { authorization: `Bearer ${ADMIN_TOKEN}` } : {}),
                  },
                  body: text,
                });
                expect(ACCEPTED).toContain(res.status);
                // Without a token nothing is judged past the envelope (size, content type, JSON
                // syntax): a parseable body is refused as unauthorised, never by the schema.
                if (endpoint.admin && !withToken) {
                  expect([parses(text) ? 401 : 400, 401, 413, 415]).toContain(res.status);
                }
                expect(errorBodySchema.safeParse(await res.json()).success).toBe(true);
              },
            ),
            { numRuns: RUNS },
          );
          expect(await counts()).toEqual(before);
          // Still alive and serving.
          expect((await t.request(SWARM_PATHS.info)).status).toBe(200);
        },
      );
    }
  }

  it('an admin action that is valid but unauthenticated does nothing', async () => {
    const before = await counts();
    for (const authorization of [undefined, 'Bearer wrong-token', `Basic ${ADMIN_TOKEN}`]) {
      const res = await t.request(SWARM_PATHS.nodes, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(authorization ? { authorization } : {}),
        },
        body: JSON.stringify(templates['admin nodes']),
      });
      expect(res.status).toBe(401);
    }
    expect(await counts()).toEqual(before);
  });
});
