import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MESSAGE_NOT_ACCEPTED_ERROR,
  exportEncryptionPublicKey,
  generateEncryptionKeyPair,
  openMessage,
  sealMessage,
  signEncryptionKey,
  signReceipt,
  type MessageEnvelope,
} from '@swarm/contract';
import {
  createTestNode,
  insertKeyedUser,
  peersRefuseConnections,
  signedInCaller,
  trpcFailure,
  type KeyedUser,
  type TestNode,
} from './harness.ts';

// messages.* through createCaller on one real node (database, sessions), every other node
// down: bad inputs, envelopes that are not the caller's, messages between two people of this
// node (one row), privacy (following, nobody) and blocks applied to local senders exactly as to
// remote ones. Cross-node delivery: packages/testnet/test/messages.swarm.test.ts.

const SELF = 'alpha.test';
let t: TestNode;

interface Person extends KeyedUser {
  address: string;
  did: string;
  encryption: CryptoKeyPair;
  publicKey: string;
}
const people: Record<string, Person> = {};

const as = (handle: string) => signedInCaller(t.node, people[handle]!.user);
const now = () => t.clock.now().toISOString();
const failure = trpcFailure;

async function person(handle: string, withKey = true): Promise<Person> {
  const keyed = await insertKeyedUser(t.node, handle);
  const encryption = await generateEncryptionKeyPair();
  const p: Person = {
    ...keyed,
    address: `${handle}@${SELF}`,
    did: keyed.user.did!,
    encryption,
    publicKey: await exportEncryptionPublicKey(encryption.publicKey),
  };
  people[handle] = p;
  if (withKey) {
    const createdAt = now();
    await as(handle).messages.setEncryptionKey({
      publicKey: p.publicKey,
      createdAt,
      signature: await signEncryptionKey({
        signingKey: p.privateKey,
        address: p.address,
        did: p.did,
        publicKey: p.publicKey,
        createdAt,
      }),
      encryptedKeyBackup: JSON.stringify({ version: 2 }),
    });
  }
  return p;
}

function seal(from: Person, to: Person, text: string, extra: { id?: string } = {}) {
  return sealMessage({
    ...extra,
    sender: from.address,
    senderDid: from.did,
    recipient: to.address,
    createdAt: now(),
    text,
    recipientPublicKey: to.publicKey,
    senderPublicKey: from.publicKey,
    signingKey: from.privateKey,
  });
}

const rows = () => t.node.db.prisma.message.count();

beforeAll(async () => {
  t = await createTestNode({ SWARM_DOMAIN: SELF }, peersRefuseConnections());
  for (const handle of ['alice', 'bob', 'carol', 'dave']) await person(handle);
  await person('nokey', false);
});
afterAll(() => t.close());

describe('keys', () => {
  it('me() shows the published key; a key not signed by the user is refused', async () => {
    const me = await as('alice').messages.me();
    expect(me).toMatchObject({
      address: `alice@${SELF}`,
      did: people.alice!.did,
      messagePrivacy: 'everyone',
    });
    expect(me.encryptionKey?.publicKey).toBe(people.alice!.publicKey);
    expect((await as('nokey').messages.me()).encryptionKey).toBeNull();

    const other = await generateEncryptionKeyPair();
    const publicKey = await exportEncryptionPublicKey(other.publicKey);
    const createdAt = now();
    // Signed by bob's key for alice's address: refused, nothing changes.
    const forged = await signEncryptionKey({
      signingKey: people.bob!.privateKey,
      address: people.alice!.address,
      did: people.alice!.did,
      publicKey,
      createdAt,
    });
    const refused = await failure(
      as('alice').messages.setEncryptionKey({
        publicKey,
        createdAt,
        signature: forged,
        encryptedKeyBackup: JSON.stringify({ version: 2 }),
      }),
    );
    expect(refused).toMatchObject({ code: 'BAD_REQUEST' });
    expect(refused.message).toMatch(/not signed by your signing key/);
    expect((await as('alice').messages.me()).encryptionKey?.publicKey).toBe(
      people.alice!.publicKey,
    );
  });

  it('bad inputs get one readable sentence', async () => {
    const badKey = await failure(
      as('alice').messages.setEncryptionKey({
        publicKey: 'short',
        createdAt: now(),
        signature: 'x',
        encryptedKeyBackup: '{}',
      }),
    );
    expect(badKey.code).toBe('BAD_REQUEST');
    expect(badKey.message).toMatch(/publicKey must be base64url of 65 bytes/);
    const v1Backup = await failure(
      as('alice').messages.setEncryptionKey({
        publicKey: people.alice!.publicKey,
        createdAt: now(),
        signature: 'x',
        encryptedKeyBackup: '{"version":1}',
      }),
    );
    expect(v1Backup.code).toBe('BAD_REQUEST');
    expect((await failure(as('alice').messages.recipient({ address: '' }))).code).toBe(
      'BAD_REQUEST',
    );
    expect(
      (await failure(as('alice').messages.recipient({ address: 'no spaces@alpha.test' }))).code,
    ).toBe('BAD_REQUEST');
    const notEnvelope = await failure(as('alice').messages.send({ envelope: { id: 'x' } }));
    expect(notEnvelope.code).toBe('BAD_REQUEST');
    expect(notEnvelope.message).toMatch(/^The message is not valid: /);
    expect((await failure(as('alice').messages.thread({ with: 'a b' }))).code).toBe('BAD_REQUEST');
    expect(await rows()).toBe(0);
  });
});

describe('between people of this node', () => {
  it('one row, readable by both, nothing in the outbox; receipts update the row', async () => {
    const { alice, bob } = people as Record<string, Person>;
    const recipient = await as('alice').messages.recipient({ address: 'bob' });
    expect(recipient).toMatchObject({
      address: bob!.address,
      did: bob!.did,
      acceptsMessages: true,
    });
    const envelope = await seal(alice!, bob!, 'hi bob, local');
    expect(await as('alice').messages.send({ envelope })).toEqual({
      id: envelope.id,
      status: 'sent',
    });
    const row = await t.node.db.prisma.message.findUniqueOrThrow({ where: { id: envelope.id } });
    expect(row).toMatchObject({ localSenderId: alice!.user.id, localRecipientId: bob!.user.id });
    expect(row.envelope).not.toContain('hi bob');
    expect(await t.node.db.prisma.outboxDelivery.count()).toBe(0);
    // Idempotent: the same envelope again answers the same; nothing new.
    expect((await as('alice').messages.send({ envelope })).id).toBe(envelope.id);
    expect(await t.node.db.prisma.message.count({ where: { id: envelope.id } })).toBe(1);

    const bobThread = await as('bob').messages.thread({ with: alice!.address });
    expect(bobThread.messages).toHaveLength(1);
    expect(bobThread.messages[0]!.direction).toBe('in');
    const opened = await openMessage({
      envelope: bobThread.messages[0]!.envelope,
      reader: bob!.address,
      privateKey: bob!.encryption.privateKey,
      publicKey: bob!.publicKey,
    });
    expect(opened.ok && opened.value.text).toBe('hi bob, local');
    expect((await as('alice').messages.thread({ with: 'bob' })).messages[0]!.direction).toBe('out');
    expect(await as('bob').messages.unreadCount()).toBe(1);
    const receipt = await signReceipt({
      signingKey: bob!.privateKey,
      messageId: envelope.id,
      status: 'read',
      sender: alice!.address,
      recipient: bob!.address,
      recipientDid: bob!.did,
      at: now(),
    });
    expect(await as('bob').messages.receipt({ receipt })).toEqual({ status: 'read' });
    expect(await as('bob').messages.unreadCount()).toBe(0);
    expect((await as('alice').messages.thread({ with: 'bob' })).messages[0]!.status).toBe('read');
    // alice cannot sign bob's receipts.
    expect((await failure(as('alice').messages.receipt({ receipt }))).code).toBe('FORBIDDEN');
    const conversations = await as('alice').messages.conversations();
    expect(conversations[0]).toMatchObject({
      with: bob!.address,
      withDisplayName: 'Bob',
      unread: 0,
    });
  });

  it('an envelope that is not the caller’s is refused, nothing stored', async () => {
    const { alice, bob, carol } = people as Record<string, Person>;
    const before = await rows();
    // carol sends alice's envelope as her own.
    const alices = await seal(alice!, bob!, 'from alice');
    expect((await failure(as('carol').messages.send({ envelope: alices }))).code).toBe('FORBIDDEN');
    // A tampered envelope (header changed after signing).
    const tampered = { ...(await seal(alice!, bob!, 'x')), createdAt: '2020-01-01T00:00:00.000Z' };
    expect((await failure(as('alice').messages.send({ envelope: tampered }))).code).toBe(
      'BAD_REQUEST',
    );
    // Someone who does not exist.
    const ghost = await seal(alice!, { ...carol!, address: `ghost@${SELF}` }, 'boo');
    expect((await failure(as('alice').messages.send({ envelope: ghost }))).code).toBe('NOT_FOUND');
    // Another envelope under a known id.
    const first = await seal(alice!, carol!, 'first');
    await as('alice').messages.send({ envelope: first });
    const reused = await seal(alice!, carol!, 'second', { id: first.id });
    expect((await failure(as('alice').messages.send({ envelope: reused }))).code).toBe('CONFLICT');
    expect(await rows()).toBe(before + 1);
  });

  it('privacy "following" and "nobody", and blocks, apply to local senders too', async () => {
    const { alice, bob, dave } = people as Record<string, Person>;
    const sendToDave = async (from: Person, text: string): Promise<MessageEnvelope> => {
      const envelope = await seal(from, dave!, text);
      await as(from.user.handle).messages.send({ envelope });
      return envelope;
    };
    const refusedToDave = async (from: Person) => {
      const before = await rows();
      const envelope = await seal(from, dave!, 'please?');
      const refused = await failure(as(from.user.handle).messages.send({ envelope }));
      expect(refused).toEqual({ code: 'FORBIDDEN', message: MESSAGE_NOT_ACCEPTED_ERROR });
      expect(await rows()).toBe(before);
    };

    await as('dave').messages.setPrivacy({ messagePrivacy: 'following' });
    expect((await as('dave').messages.me()).messagePrivacy).toBe('following');
    await refusedToDave(alice!);
    expect(await as('alice').messages.recipient({ address: 'dave' })).toMatchObject({
      acceptsMessages: false,
      reason: MESSAGE_NOT_ACCEPTED_ERROR,
    });
    await as('dave').interactions.follow({ address: 'alice' });
    await sendToDave(alice!, 'you follow me now');
    await refusedToDave(bob!);

    await as('dave').messages.setPrivacy({ messagePrivacy: 'nobody' });
    await refusedToDave(alice!);

    await as('dave').messages.setPrivacy({ messagePrivacy: 'everyone' });
    await sendToDave(bob!, 'open again');
    await as('dave').messages.block({ address: 'bob' });
    expect(await as('dave').messages.blocks()).toEqual([
      expect.objectContaining({ address: `bob@${SELF}` }),
    ]);
    await refusedToDave(bob!);
    // Blocking hides bob's messages from dave's inbox, not alice's.
    const inbox = await as('dave').messages.conversations();
    expect(inbox.map((c) => c.with)).toEqual([alice!.address]);
    expect((await as('dave').messages.thread({ with: 'bob' })).messages).toEqual([]);
    expect(await as('dave').messages.unreadCount()).toBe(1);
    await as('dave').messages.unblock({ address: `bob@${SELF}` });
    expect((await as('dave').messages.thread({ with: 'bob' })).messages).toHaveLength(1);
    expect((await failure(as('dave').messages.block({ address: 'dave' }))).code).toBe(
      'BAD_REQUEST',
    );
  });

  it('someone without an encryption key cannot be written to yet', async () => {
    expect(await as('alice').messages.recipient({ address: 'nokey' })).toMatchObject({
      acceptsMessages: false,
      encryptionKey: null,
      reason: expect.stringMatching(/has not set up direct messages/),
    });
    expect(await as('alice').messages.recipient({ address: 'alice' })).toMatchObject({
      acceptsMessages: false,
    });
  });

  it('a remote recipient whose node is down is a clear gateway error', async () => {
    const refused = await failure(as('alice').messages.recipient({ address: 'bob@beta.test' }));
    expect(refused.code).toBe('BAD_GATEWAY');
  });
});
