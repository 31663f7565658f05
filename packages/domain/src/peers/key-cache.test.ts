import { describe, expect, it } from 'vitest';
import {
  exportPublicKeyPem,
  generateSigningKeyPair,
  publicKeyToDidKey,
  signBytes,
  verifyBytes,
} from '@swarm/contract';
import { importDidKey, importNodeKey, memoiseImport } from './key-cache.ts';

describe('memoiseImport', () => {
  it('loads each text once, shares concurrent loads and keeps at most max (LRU)', async () => {
    const loads: string[] = [];
    const get = memoiseImport(2, async (text) => {
      loads.push(text);
      return text.toUpperCase();
    });
    expect(await Promise.all([get('a'), get('a')])).toEqual(['A', 'A']);
    await get('b');
    await get('a'); // a is now the most recently used
    await get('c'); // evicts b
    await get('a');
    await get('b');
    expect(loads).toEqual(['a', 'b', 'c', 'b']);
  });

  it('does not keep a load that threw', async () => {
    let calls = 0;
    const get = memoiseImport(10, async () => {
      calls++;
      if (calls === 1) throw new Error('transient');
      return calls;
    });
    await expect(get('x')).rejects.toThrow('transient');
    expect(await get('x')).toBe(2);
    expect(await get('x')).toBe(2);
  });
});

describe('importNodeKey and importDidKey', () => {
  it('import keys that verify, canonicalise PEMs and refuse junk as values', async () => {
    const pair = await generateSigningKeyPair();
    const signature = await signBytes(pair.privateKey, 'payload');
    const pem = await exportPublicKeyPem(pair.publicKey);
    const crlf = await importNodeKey(pem.replace(/\n/g, '\r\n'));
    expect(crlf.ok && crlf.value.pem).toBe(pem);
    expect(crlf.ok && (await verifyBytes(crlf.value.key, 'payload', signature))).toBe(true);
    const did = await importDidKey(await publicKeyToDidKey(pair.publicKey));
    expect(did.ok && (await verifyBytes(did.value, 'payload', signature))).toBe(true);
    expect((await importNodeKey('not a pem')).ok).toBe(false);
    expect((await importDidKey('did:key:zjunk')).ok).toBe(false);
  });
});
