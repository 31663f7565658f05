import { describe, expect, it } from 'vitest';
import { refuseForeignRequest, requestSource } from '../src/lib/server/request-origin.ts';
import { withSecurityHeaders } from '../src/lib/server/security-headers.ts';

const ORIGIN = 'https://social.example.org';

describe('requestSource', () => {
  it.each([
    [{ origin: ORIGIN }, 'same-origin'],
    [{ origin: 'https://social.example.org:8443' }, 'cross-origin'],
    [{ origin: 'http://social.example.org' }, 'cross-origin'],
    [{ origin: 'https://sub.social.example.org' }, 'cross-origin'],
    [{ origin: 'null' }, 'cross-origin'],
    [{ origin: '' }, 'cross-origin'],
    // Origin wins over what the other headers say.
    [{ origin: 'https://evil.example', 'sec-fetch-site': 'same-origin' }, 'cross-origin'],
    [{ origin: ORIGIN, referer: 'https://evil.example/' }, 'same-origin'],
    [{ 'sec-fetch-site': 'same-origin' }, 'same-origin'],
    [{ 'sec-fetch-site': 'same-site' }, 'cross-origin'],
    [{ 'sec-fetch-site': 'cross-site' }, 'cross-origin'],
    [{ 'sec-fetch-site': 'none' }, 'cross-origin'],
    [{ 'sec-fetch-site': 'same-site', referer: `${ORIGIN}/x` }, 'cross-origin'],
    [{ referer: `${ORIGIN}/settings?x=1` }, 'same-origin'],
    [{ referer: 'https://social.example.org.evil.example/' }, 'cross-origin'],
    [{ referer: 'not a url' }, 'cross-origin'],
    [{}, 'unknown'],
  ])('%o → %s', (headers, expected) => {
    expect(requestSource(new Headers(headers), ORIGIN)).toBe(expected);
  });
});

describe('refuseForeignRequest', () => {
  const request = (method: string, path: string, headers: Record<string, string> = {}) =>
    new Request(`${ORIGIN}${path}`, { method, headers });

  it('lets safe methods through from anywhere', () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS']) {
      const r = request(method, '/api/users/x', { origin: 'https://evil.example' });
      expect(refuseForeignRequest(r, new URL(r.url))).toBeNull();
    }
  });

  it('refuses other methods from elsewhere: JSON under /api and /trpc, text for pages', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'PROPFIND']) {
      for (const path of ['/api/users/a@b.example/follow', '/trpc/posts.create']) {
        const r = request(method, path, { origin: 'https://evil.example' });
        const refused = refuseForeignRequest(r, new URL(r.url));
        expect(refused?.status, `${method} ${path}`).toBe(403);
        expect(await refused?.json()).toEqual({
          code: 'FORBIDDEN',
          error: `${method} refused: the request comes from another site. This node accepts changes only from its own pages at ${ORIGIN}.`,
        });
      }
      const page = request(method, '/logout', {});
      const refused = refuseForeignRequest(page, new URL(page.url));
      expect(refused?.status).toBe(403);
      expect(refused?.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(await refused?.text()).toContain(`other clients must send "Origin: ${ORIGIN}"`);
    }
  });

  it('lets the node’s own requests through', () => {
    const r = request('POST', '/trpc/posts.create', { origin: ORIGIN });
    expect(refuseForeignRequest(r, new URL(r.url))).toBeNull();
  });
});

describe('withSecurityHeaders', () => {
  it('adds the headers, a deny-all CSP where none is set, and HSTS on https only', () => {
    const json = withSecurityHeaders(Response.json({}), new URL(`${ORIGIN}/api/users/x`));
    expect(Object.fromEntries(json.headers)).toMatchObject({
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'same-origin',
      'content-security-policy': expect.stringContaining("default-src 'none'") as unknown,
      'strict-transport-security': 'max-age=31536000',
    });
    const plain = withSecurityHeaders(new Response('x'), new URL('http://localhost:3000/'));
    expect(plain.headers.get('strict-transport-security')).toBeNull();
  });

  it("keeps a page's own CSP, and copies responses whose headers are immutable", () => {
    const page = new Response('<p>', {
      headers: { 'content-security-policy': "script-src 'self' 'nonce-abc'" },
    });
    expect(withSecurityHeaders(page, new URL(ORIGIN)).headers.get('content-security-policy')).toBe(
      "script-src 'self' 'nonce-abc'",
    );
    const redirect = withSecurityHeaders(Response.redirect(`${ORIGIN}/x`, 302), new URL(ORIGIN));
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe(`${ORIGIN}/x`);
    expect(redirect.headers.get('x-frame-options')).toBe('DENY');
  });
});
