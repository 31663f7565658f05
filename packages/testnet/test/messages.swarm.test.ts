import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MESSAGE_NOT_ACCEPTED_ERROR,
  SWARM_PATHS,
  base64urlDecode,
  base64urlEncode,
  exportEncryptionPublicKey,
  exportPublicKeyPem,
  generateEncryptionKeyPair,
  generateSigningKeyPair,
  messageResponseSchema,
  openMessage,
  publicKeyToDidKey,
  sealMessage,
  signEncryptionKey,
  signReceipt,
  signUserAction,
  swarmUserResponseSchema,
  verifyEncryptionKey,
  type MessageEnvelope,
} from '@swarm/contract';
import { DID_RECHECK_MS, type NodeContext } from '@swarm/domain';
import {
  ALPHA as A,
  BETA as B,
  createTwoNodes,
  insertKeyedUser,
  signedInCaller,
  trpcFailure,
  type KeyedUser,
  type NetworkNode,
  type TestNetwork,
} from './harness.ts';

// Issue #5: alice on alpha and bob on beta exchange end-to-end encrypted direct messages. The
// test plays both browsers (message-crypto in Node: seal, sign, verify, open, receipts) and
// calls each node's front door (tRPC createCaller); nodes talk over the test network's links
// (real gateways, node and user signatures). Faults: tampering, forged signatures, replays,
// privacy and blocks, and beta down while alice sends.

let net: TestNetwork;
let alpha: NetworkNode;
let beta: NetworkNode;

interface Person extends KeyedUser {
  member: NetworkNode;
  address: string;
  did: string;
  encryption: CryptoKeyPair;
  publicKey: string;
}
let alice: Person;
let bob: Person;

const as = (p: Person) => signedInCaller(p.member.node, p.user);
const now = () => net.clock.now().toISOString();

/** What the browser does the first time: make the encryption key, bind it, publish it. */
async function withEncryptionKey(member: NetworkNode, keyed: KeyedUser): Promise<Person> {
  const encryption = await generateEncryptionKeyPair();
  const publicKey = await exportEncryptionPublicKey(encryption.publicKey);
  const address = `${keyed.user.handle}@${member.domain}`;
  const did = keyed.user.did!;
  const createdAt = now();
  const signature = await signEncryptionKey({
    signingKey: keyed.privateKey,
    address,
    did,
    publicKey,
    createdAt,
  });
  const person = { ...keyed, member, address, did, encryption, publicKey };
  await as(person).messages.setEncryptionKey({
    publicKey,
    createdAt,
    signature,
    encryptedKeyBackup: JSON.stringify({ version: 2, opaque: 'encrypted in the browser' }),
  });
  return person;
}

/** alice's browser: ask her node for the recipient, verify the key binding, seal. */
async function compose(from: Person, to: Person, text: string): Promise<MessageEnvelope> {
  const recipient = await as(from).messages.recipient({ address: to.address });
  expect(recipient.acceptsMessages).toBe(true);
  expect(recipient.did).toBe(to.did);
  expect(
    await verifyEncryptionKey({
      address: to.address,
      did: recipient.did!,
      encryptionKey: recipient.encryptionKey!,
    }),
  ).toBe(true);
  return sealMessage({
    sender: from.address,
    senderDid: from.did,
    recipient: to.address,
    createdAt: now(),
    text,
    recipientPublicKey: recipient.encryptionKey!.publicKey,
    senderPublicKey: from.publicKey,
    signingKey: from.privateKey,
  });
}

const read = (reader: Person, envelope: unknown) =>
  openMessage({
    envelope,
    reader: reader.address,
    privateKey: reader.encryption.privateKey,
    publicKey: reader.publicKey,
  });

const messagesOn = (member: NetworkNode) => member.node.db.prisma.message;

/** One message as `viewer`'s thread with `other` shows it (the manual clock stands still, so
 * several messages share a createdAt: find by id, not by position). */
async function shown(viewer: Person, other: Person, id: string) {
  const thread = await as(viewer).messages.thread({ with: other.address });
  const found = thread.messages.find((m) => m.envelope.id === id);
  if (!found) throw new Error(`message ${id} is not in the thread`);
  return found;
}

/** POSTs that reached beta unfaulted on `path`. */
const arrived = (path: string) =>
  net.network.requests.filter(
    (r) => r.domain === B && r.method === 'POST' && r.path === path && r.fault === null,
  ).length;

/** alpha's node POSTs straight to beta (node-signed by alpha): what a malicious alpha could do. */
const alphaPosts = (path: string, body: unknown) =>
  alpha.node.peers.postJson(B, path, body, messageResponseSchema);

function flip(b64: string): string {
  const bytes = base64urlDecode(b64);
  const i = Math.floor(bytes.length / 2);
  bytes[i] = bytes[i]! ^ 0x01;
  return base64urlEncode(bytes);
}

/** Every text-like column of every table in the node's database that contains `needle`. */
async function columnsContaining(node: NodeContext, needle: string): Promise<string[]> {
  const prisma = node.db.prisma;
  const columns = await prisma.$queryRaw<{ table_name: string; column_name: string }[]>`
    SELECT table_name, column_name FROM information_schema.columns
    WHERE table_schema = current_schema()
      AND data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY', 'USER-DEFINED')`;
  expect(columns.some((c) => c.table_name === 'messages' && c.column_name === 'envelope')).toBe(
    true,
  );
  const found: string[] = [];
  for (const { table_name: table, column_name: column } of columns) {
    const rows = await prisma.$queryRawUnsafe<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM "${table}" WHERE "${column}"::text LIKE $1`,
      `%${needle}%`,
    );
    if ((rows[0]?.n ?? 0) > 0) found.push(`${table}.${column}`);
  }
  return found;
}

beforeAll(async () => {
  ({ net, alpha, beta } = await createTwoNodes({}));
  alice = await withEncryptionKey(alpha, await insertKeyedUser(alpha.node, 'alice'));
  bob = await withEncryptionKey(beta, await insertKeyedUser(beta.node, 'bob'));
});
afterAll(() => net.close());

describe('alice@alpha and bob@beta', () => {
  it('both nodes say they take messages; profiles publish the bound encryption key', async () => {
    for (const member of [alpha, beta]) {
      const info = (await (await member.request(SWARM_PATHS.info)).json()) as {
        capabilities: string[];
      };
      expect(info.capabilities).toContain('messages');
    }
    const res = await beta.request(`${SWARM_PATHS.user('bob')}?limit=0`);
    const { profile } = swarmUserResponseSchema.parse(await res.json());
    expect(profile.encryptionKey?.publicKey).toBe(bob.publicKey);
    expect(
      await verifyEncryptionKey({
        address: bob.address,
        did: profile.did!,
        encryptionKey: profile.encryptionKey!,
      }),
    ).toBe(true);
  });

  it('exchange messages both ways; receipts flow back; no plaintext in either database', async () => {
    const hello = 'hello bob: the secret word is PLAINTEXT-7f3a';
    const envelope = await compose(alice, bob, hello);
    const sent = await as(alice).messages.send({ envelope });
    expect(sent).toMatchObject({ id: envelope.id, status: 'sent' });
    expect(sent.delivery).toMatchObject({ status: 'delivered', attempts: 1 });

    // bob's browser: inbox, then thread, decrypts.
    expect(await as(bob).messages.unreadCount()).toBe(1);
    const inbox = await as(bob).messages.conversations();
    expect(inbox).toEqual([
      expect.objectContaining({ with: alice.address, unread: 1, lastEnvelope: envelope }),
    ]);
    const thread = await as(bob).messages.thread({ with: alice.address });
    expect(thread.messages).toHaveLength(1);
    expect(thread.messages[0]).toMatchObject({ direction: 'in', status: 'sent' });
    expect(thread.with).toMatchObject({ address: alice.address, did: alice.did });
    const opened = await read(bob, thread.messages[0]!.envelope);
    expect(opened.ok && opened.value.text).toBe(hello);

    // Receipts: delivered on fetch, read when shown; they travel back to alpha.
    for (const status of ['delivered', 'read'] as const) {
      const receipt = await signReceipt({
        signingKey: bob.privateKey,
        messageId: envelope.id,
        status,
        sender: alice.address,
        recipient: bob.address,
        recipientDid: bob.did,
        at: now(),
      });
      expect(await as(bob).messages.receipt({ receipt })).toEqual({ status });
      expect(await shown(alice, bob, envelope.id)).toMatchObject({ direction: 'out', status });
    }
    expect(await as(bob).messages.unreadCount()).toBe(0);
    // An older receipt changes nothing.
    const late = await signReceipt({
      signingKey: bob.privateKey,
      messageId: envelope.id,
      status: 'delivered',
      sender: alice.address,
      recipient: bob.address,
      recipientDid: bob.did,
      at: now(),
    });
    expect(await as(bob).messages.receipt({ receipt: late })).toEqual({ status: 'read' });
    expect((await messagesOn(alpha).findUniqueOrThrow({ where: { id: envelope.id } })).status).toBe(
      'read',
    );

    // bob answers; alice reads it on alpha, and her own sent message too.
    const answer = 'hi alice, got it: PLAINTEXT-91bc';
    net.clock.advance(1_000); // so the thread's order is the order of writing
    const reply = await compose(bob, alice, answer);
    expect((await as(bob).messages.send({ envelope: reply })).status).toBe('sent');
    const aliceThread = await as(alice).messages.thread({ with: bob.address });
    expect(aliceThread.messages.map((m) => m.direction)).toEqual(['out', 'in']);
    const [mine, theirs] = aliceThread.messages;
    const openedReply = await read(alice, theirs!.envelope);
    expect(openedReply.ok && openedReply.value.text).toBe(answer);
    const ownCopy = await read(alice, mine!.envelope);
    expect(ownCopy.ok && ownCopy.value.text).toBe(hello);

    // Nodes store and relay ciphertext only: no text column of any table holds the words.
    for (const member of [alpha, beta]) {
      expect(await columnsContaining(member.node, 'PLAINTEXT-')).toEqual([]);
      // …while the search does find what is stored in clear (the check can fail).
      expect(await columnsContaining(member.node, envelope.id)).toContain('messages.envelope');
    }
  });

  it('tampered ciphertext and a forged sender signature are refused by beta; nothing stored', async () => {
    const before = await messagesOn(beta).count();
    const good = await compose(alice, bob, 'tamper with me');

    const tampered = { ...good, ciphertext: flip(good.ciphertext) };
    const refused = await alphaPosts(SWARM_PATHS.messages, tampered);
    expect(!refused.ok && refused.reason.kind === 'http' && refused.reason.status).toBe(401);

    // A signature by someone else's key, claiming alice's did.
    const mallory = await generateSigningKeyPair();
    const { signature: _s, ...unsigned } = good;
    const forged = {
      ...unsigned,
      signature: await signUserAction({
        privateKey: mallory.privateKey,
        action: 'message',
        targetDomain: B,
        body: unsigned,
      }),
    };
    const forgedAnswer = await alphaPosts(SWARM_PATHS.messages, forged);
    expect(
      !forgedAnswer.ok && forgedAnswer.reason.kind === 'http' && forgedAnswer.reason.status,
    ).toBe(401);

    // Mallory signing with her own did, pretending to be alice: not the did pinned for alice.
    const malloryDid = await publicKeyToDidKey(mallory.publicKey);
    const asMallory = { ...unsigned, senderDid: malloryDid };
    const selfSigned = {
      ...asMallory,
      signature: await signUserAction({
        privateKey: mallory.privateKey,
        action: 'message',
        targetDomain: B,
        body: asMallory,
      }),
    };
    const selfAnswer = await alphaPosts(SWARM_PATHS.messages, selfSigned);
    expect(!selfAnswer.ok && selfAnswer.reason.kind === 'http' && selfAnswer.reason.status).toBe(
      401,
    );

    // alice's own node refuses a tampered envelope from her session too.
    const viaTrpc = await trpcFailure(as(alice).messages.send({ envelope: tampered }));
    expect(viaTrpc.code).toBe('BAD_REQUEST');

    expect(await messagesOn(beta).count()).toBe(before);
    expect(await messagesOn(alpha).count({ where: { id: good.id } })).toBe(0);

    // Malformed body: 400; a recipient beta does not have: 404.
    const malformed = await alphaPosts(SWARM_PATHS.messages, { ...good, extra: true });
    expect(!malformed.ok && malformed.reason.kind === 'http' && malformed.reason.status).toBe(400);
    const ghost = await sealMessage({
      sender: alice.address,
      senderDid: alice.did,
      recipient: `ghost@${B}`,
      createdAt: now(),
      text: 'anyone there?',
      recipientPublicKey: bob.publicKey,
      senderPublicKey: alice.publicKey,
      signingKey: alice.privateKey,
    });
    const noOne = await alphaPosts(SWARM_PATHS.messages, ghost);
    expect(!noOne.ok && noOne.reason.kind === 'http' && noOne.reason.status).toBe(404);
    // Through alice's node the sender sees the reason in words.
    expect(await as(alice).messages.send({ envelope: ghost })).toMatchObject({
      status: 'failed',
      failureReason: 'no such person',
    });

    // Unsigned (no node signature) requests are refused before anything is read.
    const unsignedPost = await beta.request(SWARM_PATHS.messages, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(good),
    });
    expect(unsignedPost.status).toBe(401);
    expect(await messagesOn(beta).count()).toBe(before);
  });

  it('a ciphertext re-signed after tampering is stored but detected by the reader', async () => {
    const good = await compose(alice, bob, 'opened only if intact');
    const { signature: _s, ...unsigned } = good;
    const altered = { ...unsigned, ciphertext: flip(unsigned.ciphertext) };
    const resigned = {
      ...altered,
      signature: await signUserAction({
        privateKey: alice.privateKey,
        action: 'message',
        targetDomain: B,
        body: altered,
      }),
    };
    expect((await as(alice).messages.send({ envelope: resigned })).status).toBe('sent');
    const opened = await read(bob, resigned);
    expect(opened.ok).toBe(false);
  });

  it('a swapped recipient key is detected by the sender’s browser', async () => {
    const recipient = await as(alice).messages.recipient({ address: bob.address });
    const eve = await generateEncryptionKeyPair();
    const swapped = {
      ...recipient.encryptionKey!,
      publicKey: await exportEncryptionPublicKey(eve.publicKey),
    };
    expect(
      await verifyEncryptionKey({ address: bob.address, did: bob.did, encryptionKey: swapped }),
    ).toBe(false);
    // And a message sealed to the swapped key is unreadable for bob.
    const sealed = await sealMessage({
      sender: alice.address,
      senderDid: alice.did,
      recipient: bob.address,
      createdAt: now(),
      text: 'to the wrong key',
      recipientPublicKey: swapped.publicKey,
      senderPublicKey: alice.publicKey,
      signingKey: alice.privateKey,
    });
    expect((await read(bob, sealed)).ok).toBe(false);
  });

  it('a replayed envelope is stored once; same id with other content is 409; another node is 403', async () => {
    const envelope = await compose(alice, bob, 'only once');
    await as(alice).messages.send({ envelope });
    const count = () => messagesOn(beta).count({ where: { id: envelope.id } });
    expect(await count()).toBe(1);
    const replay = await alphaPosts(SWARM_PATHS.messages, envelope);
    expect(replay.ok && replay.value).toEqual({
      success: true,
      message: 'Message received',
      messageId: envelope.id,
    });
    expect(await count()).toBe(1);
    // The same id with another (validly signed) content.
    const other = await sealMessage({
      id: envelope.id,
      sender: alice.address,
      senderDid: alice.did,
      recipient: bob.address,
      createdAt: now(),
      text: 'something else',
      recipientPublicKey: bob.publicKey,
      senderPublicKey: alice.publicKey,
      signingKey: alice.privateKey,
    });
    const conflict = await alphaPosts(SWARM_PATHS.messages, other);
    expect(!conflict.ok && conflict.reason.kind === 'http' && conflict.reason.status).toBe(409);
    // beta relaying alice's envelope to itself (a node speaking for another node's user).
    const gamma = await net.add({ domain: 'gamma.test' });
    const relayed = await gamma.node.peers.postJson(
      B,
      SWARM_PATHS.messages,
      envelope,
      messageResponseSchema,
    );
    expect(!relayed.ok && relayed.reason.kind === 'http' && relayed.reason.status).toBe(403);
    expect(await count()).toBe(1);
    const stored = await messagesOn(beta).findUniqueOrThrow({ where: { id: envelope.id } });
    expect(JSON.parse(stored.envelope)).toEqual(envelope);
  });
});

describe('privacy and blocks, enforced by bob’s node', () => {
  async function expectNotAccepted() {
    const envelope = await compose(alice, bob, 'may I?');
    const result = await as(alice).messages.send({ envelope });
    expect(result).toMatchObject({ status: 'failed', failureReason: 'not accepted' });
    expect(await messagesOn(beta).count({ where: { id: envelope.id } })).toBe(0);
    expect(await shown(alice, bob, envelope.id)).toMatchObject({
      status: 'failed',
      failureReason: 'not accepted',
    });
    // The wire answer itself: 403 with the error sentence.
    const direct = await alphaPosts(SWARM_PATHS.messages, { ...envelope });
    expect(!direct.ok && direct.reason.kind === 'http' && direct.reason.status).toBe(403);
    expect(!direct.ok && direct.reason.kind === 'http' && direct.reason.body?.error).toBe(
      MESSAGE_NOT_ACCEPTED_ERROR,
    );
  }

  it('"nobody": refused with 403, alice sees failed: not accepted', async () => {
    const earlier = await compose(alice, bob, 'before the change');
    expect((await as(alice).messages.send({ envelope: earlier })).status).toBe('sent');
    await as(bob).messages.setPrivacy({ messagePrivacy: 'nobody' });
    try {
      const recipient = await as(alice).messages.recipient({ address: bob.address });
      expect(recipient.acceptsMessages).toBe(true); // alpha cannot know bob's setting
      await expectNotAccepted();
      // A retry of a message that did arrive (its answer lost) is still answered 200.
      const retried = await alphaPosts(SWARM_PATHS.messages, earlier);
      expect(retried.ok && retried.value).toMatchObject({ success: true, messageId: earlier.id });
      expect(await messagesOn(beta).count({ where: { id: earlier.id } })).toBe(1);
    } finally {
      await as(bob).messages.setPrivacy({ messagePrivacy: 'everyone' });
    }
  });

  it('a block: refused with 403; unblocking lets messages through again', async () => {
    await as(bob).messages.block({ address: alice.address });
    expect((await as(bob).messages.blocks()).map((b) => b.address)).toEqual([alice.address]);
    await expectNotAccepted();
    await as(bob).messages.unblock({ address: alice.address });
    const envelope = await compose(alice, bob, 'unblocked');
    expect((await as(alice).messages.send({ envelope })).status).toBe('sent');
  });

  it('"following": only people bob follows', async () => {
    await as(bob).messages.setPrivacy({ messagePrivacy: 'following' });
    try {
      await expectNotAccepted();
      await as(bob).interactions.follow({ address: alice.address });
      await net.processAll();
      const envelope = await compose(alice, bob, 'now you follow me');
      expect((await as(alice).messages.send({ envelope })).status).toBe('sent');
    } finally {
      await as(bob).messages.setPrivacy({ messagePrivacy: 'everyone' });
    }
  });
});

describe('beta down while alice sends', () => {
  it('retrying while down; delivered exactly once after beta is back', async () => {
    // alice looked bob up while beta was up; then beta goes down.
    const seen = await as(alice).messages.recipient({ address: bob.address });
    net.network.drop(B);
    // Alpha still offers the key bob's profile last published (the browser checks its binding).
    expect(await as(alice).messages.recipient({ address: bob.address })).toEqual({
      ...seen,
      acceptsMessages: true,
    });
    expect(seen.encryptionKey?.publicKey).toBe(bob.publicKey);
    // Someone alpha never saw: no key to offer, the node's failure is the answer.
    expect(
      await trpcFailure(as(alice).messages.recipient({ address: `nobody@${B}` })),
    ).toMatchObject({ code: 'BAD_GATEWAY' });
    const envelope = await compose(alice, bob, 'sent while you were away');
    const result = await as(alice).messages.send({ envelope });
    expect(result.status).toBe('retrying');
    expect(result.delivery?.summary).toMatch(/^retrying, next in /);
    expect(await shown(alice, bob, envelope.id)).toMatchObject({ status: 'retrying' });
    // Sending again (the browser retrying the call) is idempotent: same id, nothing new.
    expect((await as(alice).messages.send({ envelope })).id).toBe(envelope.id);
    expect(
      await alpha.node.db.prisma.outboxDelivery.count({ where: { interactionId: envelope.id } }),
    ).toBe(1);

    net.network.heal(B);
    const before = arrived(SWARM_PATHS.messages);
    net.clock.advance(60_000);
    await net.processAll();
    expect(await shown(alice, bob, envelope.id)).toMatchObject({ status: 'sent' });
    expect(arrived(SWARM_PATHS.messages)).toBe(before + 1);
    expect(await messagesOn(beta).count({ where: { id: envelope.id } })).toBe(1);
    net.clock.advance(3 * 60 * 60_000);
    await net.processAll();
    expect(arrived(SWARM_PATHS.messages)).toBe(before + 1);
    const stored = await messagesOn(beta).findUniqueOrThrow({ where: { id: envelope.id } });
    const opened = await read(bob, JSON.parse(stored.envelope));
    expect(opened.ok && opened.value.text).toBe('sent while you were away');
  });
});

describe('a message whose delivery gave up', () => {
  it('fails after 48 h; Retry now by its sender sends it again, and it arrives once', async () => {
    const envelope = await compose(alice, bob, 'are you there?');
    net.network.drop(B);
    const first = await as(alice).messages.send({ envelope });
    const deliveryId = first.delivery?.id;
    expect(deliveryId).toBeDefined();
    for (let hour = 0; hour < 50; hour++) {
      net.clock.advance(60 * 60_000);
      await net.processAll();
    }
    expect(await shown(alice, bob, envelope.id)).toMatchObject({
      status: 'failed',
      failureReason: 'gave up after 48 h',
      delivery: { id: deliveryId, status: 'failed' },
    });

    // Retry now tries once more at once: with beta still down it fails again.
    const attempts = (await shown(alice, bob, envelope.id)).delivery!.attempts;
    await as(alice).deliveries.retry({ id: deliveryId! });
    await net.processAll();
    expect(await shown(alice, bob, envelope.id)).toMatchObject({
      status: 'failed',
      delivery: { attempts: attempts + 1 },
    });

    net.network.heal(B);
    await as(alice).deliveries.retry({ id: deliveryId! });
    await net.processAll();
    expect(await shown(alice, bob, envelope.id)).toMatchObject({ status: 'sent' });
    expect(await messagesOn(beta).count({ where: { id: envelope.id } })).toBe(1);
    // The thread names bob as his profile does.
    expect((await as(alice).messages.thread({ with: bob.address })).with).toMatchObject({
      address: bob.address,
      displayName: expect.any(String),
      did: bob.did,
    });
  });
});

describe('key rotation', () => {
  it('beta re-pins alice’s did once alpha publishes the new one; a stale did is refused', async () => {
    const signing = await generateSigningKeyPair();
    const did = await publicKeyToDidKey(signing.publicKey);
    const oldDid = alice.did;
    await alpha.node.db.prisma.user.update({
      where: { id: alice.user.id },
      data: { did, publicKey: await exportPublicKeyPem(signing.publicKey) },
    });
    const rotated = await withEncryptionKey(alpha, {
      user: { ...alice.user, did },
      privateKey: signing.privateKey,
    });
    // Past the re-check window of earlier refusals, so beta asks alpha again.
    net.clock.advance(DID_RECHECK_MS);
    const envelope = await compose(rotated, bob, 'new key, same alice');
    expect((await as(rotated).messages.send({ envelope })).status).toBe('sent');
    const pinned = await beta.node.db.prisma.remoteActor.findUniqueOrThrow({
      where: { nodeDomain_handle: { nodeDomain: A, handle: 'alice' } },
    });
    expect(pinned.did).toBe(did);
    // An envelope still signed with the old key is now refused.
    const stale = await sealMessage({
      sender: alice.address,
      senderDid: oldDid,
      recipient: bob.address,
      createdAt: now(),
      text: 'old key',
      recipientPublicKey: bob.publicKey,
      senderPublicKey: alice.publicKey,
      signingKey: alice.privateKey,
    });
    const refused = await alphaPosts(SWARM_PATHS.messages, stale);
    expect(!refused.ok && refused.reason.kind === 'http' && refused.reason.status).toBe(401);
  });
});
