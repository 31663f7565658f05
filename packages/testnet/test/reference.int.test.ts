import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestNode, type TestNode } from './harness.ts';

// The spec's endpoints, as OpenAPI paths: the document must describe every one of them.
const SPEC_OPERATIONS = [
  ['get', '/api/swarm/users/{handle}'],
  ['get', '/api/swarm/timeline'],
  ['get', '/.well-known/node-swarm'],
  ['get', '/api/swarm/info'],
  ['get', '/api/swarm/nodes'],
  ['post', '/api/swarm/nodes'],
  ['get', '/api/swarm/posts/{id}'],
  ['get', '/api/swarm/replies'],
  ['post', '/api/swarm/replies'],
  ['post', '/api/swarm/announce'],
  ['post', '/api/swarm/gossip'],
  ...['like', 'unlike', 'repost', 'follow', 'unfollow', 'mention'].map((k) => [
    'post',
    `/api/swarm/interactions/${k}`,
  ]),
] as const;

describe('OpenAPI document and reference page', () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await createTestNode();
  });
  afterAll(async () => {
    await t.close();
  });

  it('documents every endpoint of the interface as OpenAPI 3.1, with schemas', async () => {
    const res = await t.request('/api/swarm/openapi.json');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as {
      openapi: string;
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    expect(doc.openapi).toBe('3.1.0');
    for (const [method, path] of SPEC_OPERATIONS) {
      expect(doc.paths[path]?.[method], `${method.toUpperCase()} ${path}`).toBeDefined();
    }
    const like = doc.paths['/api/swarm/interactions/like']?.post as unknown as {
      requestBody: { content: { 'application/json': { schema: { properties: object } } } };
    };
    expect(Object.keys(like.requestBody.content['application/json'].schema.properties)).toEqual(
      expect.arrayContaining(['postId', 'like', 'signature']),
    );
  });

  // The document changes only on purpose: a route, a schema or a status changed, and the diff of
  // docs/openapi.json shows it in review. Regenerate it with `pnpm openapi` (this test with -u);
  // the software version is left out, so that a release alone changes nothing.
  it('is the committed docs/openapi.json', async () => {
    const res = await t.request('/api/swarm/openapi.json');
    const doc = (await res.json()) as { info: { version: string } };
    doc.info.version = '(software version)';
    await expect(`${JSON.stringify(doc, null, 2)}\n`).toMatchFileSnapshot(
      '../../../docs/openapi.json',
    );
  });

  it('renders a readable reference page from the same document', async () => {
    const res = await t.request('/api/swarm/reference');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    const page = await res.text();
    expect(page).toContain('<html lang="en">');
    for (const [, path] of SPEC_OPERATIONS) expect(page).toContain(`<code>${path}</code>`);
  });
});
