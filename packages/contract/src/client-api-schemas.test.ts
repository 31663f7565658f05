import { describe, expect, it } from 'vitest';
import { clientAppInputSchema, redirectUriProblem } from './client-api-schemas.ts';

describe('redirect URIs of client apps', () => {
  it.each([
    'urn:ietf:wg:oauth:2.0:oob',
    'https://app.example/callback?x=1',
    'http://localhost:8080/cb',
    'http://127.0.0.1:4000/cb',
    'http://[::1]/cb',
    'com.example.app:/callback',
    'myapp://oauth',
  ])('accepts %s', (uri) => {
    expect(redirectUriProblem(uri)).toBeNull();
  });

  it.each([
    ['javascript:alert(1)', /javascript/],
    ['JavaScript:alert(1)', /javascript/],
    ['data:text/html,x', /data/],
    ['vbscript:x', /vbscript/],
    ['file:///etc/passwd', /file/],
    ['http://app.example/cb', /loopback/],
    ['http://127.0.0.1.app.example/cb', /loopback/],
    ['https://app.example/cb#frag', /fragment/],
    ['/relative', /absolute/],
    ['not a uri', /absolute/],
    [`https://app.example/${'x'.repeat(2000)}`, /longer/],
  ])('refuses %s', (uri, why) => {
    expect(redirectUriProblem(uri)).toMatch(why);
  });
});

describe('the app registration input', () => {
  const parse = (input: unknown) => clientAppInputSchema.safeParse(input);

  it('splits lists given as one string, keeps arrays, defaults scopes to read', () => {
    const parsed = parse({
      client_name: ' App ',
      redirect_uris: 'https://a.example/cb\n https://b.example/cb',
    });
    expect(parsed.success && parsed.data).toEqual({
      client_name: 'App',
      redirect_uris: ['https://a.example/cb', 'https://b.example/cb'],
      scopes: ['read'],
      website: null,
    });
    const listed = parse({
      client_name: 'App',
      redirect_uris: ['myapp://cb'],
      scopes: 'read  read write:media',
      website: '',
    });
    expect(listed.success && listed.data).toMatchObject({
      redirect_uris: ['myapp://cb'],
      scopes: ['read', 'write:media'],
      website: null,
    });
  });

  it.each([
    [{ redirect_uris: 'myapp://cb' }],
    [{ client_name: 'x', redirect_uris: '  ' }],
    [{ client_name: 'x', redirect_uris: 'myapp://cb', scopes: 'read admin:read' }],
    [{ client_name: 'x'.repeat(61), redirect_uris: 'myapp://cb' }],
    [{ client_name: 'x', redirect_uris: ['myapp://cb', 'javascript:x'] }],
    [{ client_name: 'x', redirect_uris: 'myapp://cb', website: 'ftp://x' }],
    [{ client_name: ['x'], redirect_uris: 'myapp://cb' }],
  ])('refuses %j', (input) => {
    expect(parse(input).success).toBe(false);
  });
});
