import { describe, expect, it } from 'vitest';
import { checkKeyBackup, KEY_BACKUP_MAX_BYTES } from './key-backup.ts';

describe('checkKeyBackup: the one rule for the stored key backup', () => {
  it('takes a JSON object of bounded size, of any version unless one is demanded', () => {
    const v1 = JSON.stringify({ version: 1, ciphertext: 'abc' });
    expect(checkKeyBackup(v1)).toEqual({ ok: true, value: v1 });
    expect(checkKeyBackup(v1, { version: 2 })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/version 2/),
    });
    const v2 = JSON.stringify({ version: 2, ciphertext: 'abc' });
    expect(checkKeyBackup(v2, { version: 2 })).toEqual({ ok: true, value: v2 });
  });

  it('refuses what is missing, not an object, or too large (counted in UTF-8 bytes)', () => {
    for (const missing of ['', null, undefined, 42]) {
      expect(checkKeyBackup(missing)).toMatchObject({ ok: false, reason: /missing/ });
    }
    for (const bad of ['not json', '[1,2]', 'null', '"text"', '12']) {
      expect(checkKeyBackup(bad)).toMatchObject({ ok: false, reason: /JSON object/ });
    }
    const padding = KEY_BACKUP_MAX_BYTES - JSON.stringify({ ct: '' }).length;
    const atCap = JSON.stringify({ ct: 'x'.repeat(padding) });
    expect(checkKeyBackup(atCap).ok).toBe(true);
    // Same number of characters, more bytes: the cap is on bytes.
    const multiByte = JSON.stringify({ ct: 'é'.repeat(padding) });
    expect(checkKeyBackup(multiByte)).toMatchObject({ ok: false, reason: /larger than/ });
  });
});
