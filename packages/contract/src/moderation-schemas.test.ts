import { describe, expect, it } from 'vitest';
import { hashInviteCode } from './moderation-schemas.ts';

describe('hashInviteCode', () => {
  it('is SHA-256 in base64url without padding, of the trimmed code (what invites stored before)', async () => {
    // node:crypto's createHash('sha256').update('abc').digest('base64url'), the earlier rule.
    expect(await hashInviteCode('  abc \n')).toBe('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
    expect(await hashInviteCode('abc')).toBe(await hashInviteCode('abc '));
    expect(await hashInviteCode('abd')).not.toBe(await hashInviteCode('abc'));
  });
});
