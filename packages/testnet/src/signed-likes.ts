import {
  SWARM_PATHS,
  formatTimestamp,
  generateSigningKeyPair,
  publicKeyToDidKey,
  signNodeRequest,
  signUserAction,
} from '@swarm/contract';
import type { TestNode } from './test-node.ts';

// Signed likes as a peer node delivers them, for the ingest benchmark and the replica test:
// users with keys on the sending node, likes signed by them, and POSTs signed by their node.

/** A user of the sending node whose did:key is on their row (the receiver resolves it there). */
export interface LikeSender {
  handle: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
}

/** `count` users bob0, bob1, … on `node`, each with a fresh key pair. */
export async function createLikeSenders(node: TestNode, count: number): Promise<LikeSender[]> {
  const senders: LikeSender[] = [];
  for (let i = 0; i < count; i++) {
    const pair = await generateSigningKeyPair();
    const handle = `bob${i}`;
    await node.node.db.prisma.user.create({
      data: {
        handle,
        displayName: `Bob ${i}`,
        passwordHash: '!',
        did: await publicKeyToDidKey(pair.publicKey),
      },
    });
    senders.push({ handle, privateKey: pair.privateKey, publicKey: pair.publicKey });
  }
  return senders;
}

/** The JSON of a like of `postId` by `sender` (of `from`), user-signed for `to`. */
export async function signedLikeJson(opts: {
  sender: LikeSender;
  from: string;
  to: string;
  postId: string;
  interactionId: string;
  now: Date;
}): Promise<string> {
  const body = {
    postId: opts.postId,
    like: {
      actorHandle: opts.sender.handle,
      actorDisplayName: opts.sender.handle,
      actorNodeDomain: opts.from,
      interactionId: opts.interactionId,
      timestamp: formatTimestamp(opts.now),
    },
  };
  const signature = await signUserAction({
    privateKey: opts.sender.privateKey,
    action: 'like',
    targetDomain: opts.to,
    body,
  });
  return JSON.stringify({ ...body, signature });
}

/** The headers of `body` POSTed to the like endpoint, node-signed by `from` (fresh nonce). */
export async function likeRequestHeaders(opts: {
  nodeKey: CryptoKey;
  from: string;
  to: string;
  body: string;
  now: Date;
}): Promise<Record<string, string>> {
  return {
    'content-type': 'application/json',
    ...(await signNodeRequest({
      privateKey: opts.nodeKey,
      method: 'POST',
      path: SWARM_PATHS.interaction('like'),
      sourceDomain: opts.from,
      targetDomain: opts.to,
      body: opts.body,
      now: opts.now,
    })),
  };
}
