import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_STATUS } from './errors.ts';

// docs/protocol.md "Errors" lists every code the node answers with, one row each; this keeps
// the list and the contract's set equal in both directions, statuses included.
const protocol = readFileSync(new URL('../../../docs/protocol.md', import.meta.url), 'utf8');

function documentedCodes(): Map<string, number> {
  const section = protocol.split(/^## /m).find((part) => part.startsWith('Errors\n'));
  if (!section) throw new Error('docs/protocol.md has no "## Errors" section');
  const rows = new Map<string, number>();
  for (const match of section.matchAll(/^\|\s*(\d{3})\s*\|\s*`([A-Z_]+)`\s*\|\s*\S/gm)) {
    const [, status, code] = match;
    expect(rows.has(code!), `${code} is listed twice`).toBe(false);
    rows.set(code!, Number(status));
  }
  return rows;
}

describe('docs/protocol.md lists the error codes', () => {
  it('documents every code of the contract with its status and a meaning', () => {
    const documented = documentedCodes();
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      expect(documented.get(code), `${code} in docs/protocol.md`).toBe(status);
    }
  });

  it('documents no code the contract lacks', () => {
    const contract = new Set(Object.keys(ERROR_STATUS));
    const extra = [...documentedCodes().keys()].filter((code) => !contract.has(code));
    expect(extra).toEqual([]);
  });
});
