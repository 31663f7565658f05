import { describe, expect, it } from 'vitest';
import { parseScopes, scopeCovered, scopesAllow } from './client-scopes.ts';

describe('client scopes', () => {
  it('parses a space-separated list once each', () => {
    expect(parseScopes(' read  write read\tfollow')).toEqual(['read', 'write', 'follow']);
  });

  it('lets a top-level scope cover its granular forms, never the other way round', () => {
    expect(scopeCovered(['read'], 'read:accounts')).toBe(true);
    expect(scopeCovered(['read:accounts'], 'read:accounts')).toBe(true);
    expect(scopeCovered(['read:accounts'], 'read')).toBe(false);
    expect(scopeCovered(['read:statuses'], 'read:accounts')).toBe(false);
    expect(scopeCovered(['write'], 'read:accounts')).toBe(false);
  });

  it('allows an endpoint when one of its accepted scopes is covered', () => {
    expect(scopesAllow(['profile'], ['read:accounts', 'profile'])).toBe(true);
    expect(scopesAllow(['write', 'push'], ['read:accounts', 'profile'])).toBe(false);
  });
});
