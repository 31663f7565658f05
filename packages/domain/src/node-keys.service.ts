import { createHmac, createPrivateKey, generateKeyPairSync } from 'node:crypto';
import {
  exportPrivateKeyPkcs8Pem,
  exportPublicKeyPem,
  generateSigningKeyPair,
  importPrivateKeyPem,
  importPublicKeyPem,
} from '@swarm/contract';
import type { Db } from '@swarm/db';
import type { Logger } from './logger.ts';

export interface NodeKeys {
  publicKey: CryptoKey;
  privateKey: CryptoKey;
  publicKeyPem: string;
  /**
   * HMAC key of the media proxy's signed URLs, derived from the private key: the same on every
   * replica and across restarts, unknown to anyone without the key.
   */
  mediaSecret: Uint8Array;
}

const KEY_ROW_ID = 'node';

/**
 * The node's ECDSA P-256 identity: created on first start, then read back on every start so
 * peers that pinned our key keep trusting us. Creation races (two replicas starting on one
 * fresh Postgres) are settled by the primary key: the loser reads the winner's key.
 */
export async function loadOrCreateNodeKeys(db: Db, logger: Logger): Promise<NodeKeys> {
  const existing = await db.prisma.nodeKey.findUnique({ where: { id: KEY_ROW_ID } });
  if (existing) return importKeys(existing.publicKeyPem, existing.privateKeyPem);

  const pair = await generateSigningKeyPair(true);
  const publicKeyPem = await exportPublicKeyPem(pair.publicKey);
  const privateKeyPem = await exportPrivateKeyPkcs8Pem(pair.privateKey);
  await db.prisma.nodeKey.createMany({
    data: [{ id: KEY_ROW_ID, publicKeyPem, privateKeyPem }],
    skipDuplicates: true,
  });
  const stored = await db.prisma.nodeKey.findUniqueOrThrow({ where: { id: KEY_ROW_ID } });
  if (stored.publicKeyPem === publicKeyPem) logger.info('created this node’s signing key pair');
  return importKeys(stored.publicKeyPem, stored.privateKeyPem);
}

async function importKeys(publicKeyPem: string, privateKeyPem: string): Promise<NodeKeys> {
  const [publicKey, privateKey] = await Promise.all([
    importPublicKeyPem(publicKeyPem),
    importPrivateKeyPem(privateKeyPem),
  ]);
  // Only a damaged database gets here; starting with a different key would break every pin.
  if (!publicKey.ok)
    throw new Error(`the stored node public key is unreadable: ${publicKey.reason}`);
  if (!privateKey.ok)
    throw new Error(`the stored node private key is unreadable: ${privateKey.reason}`);
  const mediaSecret = new Uint8Array(
    createHmac('sha256', privateKeyPem).update('swarm media proxy url v1').digest(),
  );
  return { publicKeyPem, publicKey: publicKey.value, privateKey: privateKey.value, mediaSecret };
}

/**
 * The node's VAPID key pair (RFC 8292), which identifies it to browsers' push services: an
 * ECDSA P-256 pair of its own (the signing key above is not reused for another purpose), kept
 * beside it in `node_key` under the row `vapid`, made on first start like the signing key.
 * Web Push libraries and the browser's PushManager take the keys as base64url: the public key
 * as its uncompressed point (65 bytes), the private key as its scalar (32 bytes).
 */
export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

const VAPID_ROW_ID = 'vapid';

export async function loadOrCreateVapidKeys(db: Db, logger: Logger): Promise<VapidKeys> {
  const existing = await db.prisma.nodeKey.findUnique({ where: { id: VAPID_ROW_ID } });
  if (existing) return vapidKeysOf(existing.privateKeyPem);
  const pair = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const privateKeyPem = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const publicKeyPem = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  await db.prisma.nodeKey.createMany({
    data: [{ id: VAPID_ROW_ID, publicKeyPem, privateKeyPem }],
    skipDuplicates: true,
  });
  const stored = await db.prisma.nodeKey.findUniqueOrThrow({ where: { id: VAPID_ROW_ID } });
  if (stored.privateKeyPem === privateKeyPem) logger.info('created this node’s VAPID key pair');
  return vapidKeysOf(stored.privateKeyPem);
}

function vapidKeysOf(privateKeyPem: string): VapidKeys {
  const jwk = createPrivateKey(privateKeyPem).export({ format: 'jwk' });
  if (jwk.crv !== 'P-256' || !jwk.x || !jwk.y || !jwk.d) {
    throw new Error('the stored VAPID key is not a P-256 key');
  }
  const point = Buffer.concat([
    Buffer.from([4]),
    Buffer.from(jwk.x, 'base64url'),
    Buffer.from(jwk.y, 'base64url'),
  ]);
  return { publicKey: point.toString('base64url'), privateKey: jwk.d };
}
