import { exportPublicKeyPem, generateSigningKeyPair, publicKeyToDidKey } from '@swarm/contract';
import type { KeyInput } from '../src/index.ts';

/** A clock tests move by hand (docs/testing.md: no sleeps). */
export function movableClock(start = new Date('2026-11-23T12:00:00.000Z')) {
  let at = start.getTime();
  return {
    now: () => new Date(at),
    advance(ms: number) {
      at += ms;
    },
  };
}

export const DAY = 24 * 60 * 60 * 1000;

/** A real browser-style key: SPKI PEM, its did:key, and an (opaque here) encrypted backup. */
export async function browserKey(): Promise<KeyInput> {
  const { publicKey } = await generateSigningKeyPair(true);
  return {
    publicKey: await exportPublicKeyPem(publicKey),
    did: await publicKeyToDidKey(publicKey),
    encryptedBackup: JSON.stringify({ v: 1, kdf: 'PBKDF2-SHA256', iterations: 600000, ct: 'x' }),
  };
}
