/**
 * Mastodon's scope rules: a top-level scope (`read`) covers its granular forms (`read:accounts`),
 * so "covered" is the one test used both when an app asks for scopes it registered and when a
 * token meets an endpoint.
 */

export function parseScopes(value: string): string[] {
  return [...new Set(value.split(/\s+/).filter((s) => s !== ''))];
}

/** True when `granted` includes `scope` itself or the top-level scope it belongs to. */
export function scopeCovered(granted: readonly string[], scope: string): boolean {
  if (granted.includes(scope)) return true;
  const colon = scope.indexOf(':');
  return colon > 0 && granted.includes(scope.slice(0, colon));
}

/** True when the granted scopes cover at least one of `accepted` (an endpoint's alternatives). */
export function scopesAllow(granted: readonly string[], accepted: readonly string[]): boolean {
  return accepted.some((scope) => scopeCovered(granted, scope));
}
