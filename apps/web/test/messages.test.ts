import {
  generateSigningKeyPair,
  publicKeyToDidKey,
  sealMessage,
  signEncryptionKey,
  type EncryptionKey,
} from '@swarm/contract';
import { describe, expect, it } from 'vitest';
import { generateEncryptionKey } from '../src/lib/keys/encryption-key.ts';
import { messageAddress, shortAddress } from '../src/lib/messages/address.ts';
import { createMemoryContactPins } from '../src/lib/messages/contact-pins.ts';
import { checkRecipient, trustNewDid } from '../src/lib/messages/recipient-trust.ts';
import { canRetryNow, GAVE_UP_REASON, messageStatusText } from '../src/lib/messages/status.ts';
import {
  directionOf,
  openInConversation,
  partnerDid,
  UNVERIFIED_SENDER,
} from '../src/lib/messages/verify-sender.ts';

// The browser-side parts of direct messages that need no DOM: addresses typed into "To", the
// status line under a sent message and its "Retry now", the check of a recipient's key (binding +
// TOFU pin), and the check of who wrote a message shown in a conversation.

describe('the address typed into "To"', () => {
  it('accepts @handle, handle, @handle@domain and handle@domain', () => {
    const cases = [
      ['bob', 'bob@a.example'],
      ['@bob', 'bob@a.example'],
      ['  @bob@B.Example ', 'bob@b.example'],
      // Handles here are lower-case; other nodes' keep their spelling.
      ['@Bob', 'bob@a.example'],
      ['Bob@a.example', 'bob@a.example'],
      ['Bob@b.example', 'Bob@b.example'],
      ['bob@localhost:4102', 'bob@localhost:4102'],
    ] as const;
    for (const [typed, address] of cases) {
      expect(messageAddress(typed, 'a.example')).toEqual({ ok: true, value: address });
    }
  });

  it('says what is wrong with anything else', () => {
    for (const typed of ['', '@', 'bob@', 'b o b', 'bob@bad domain', '@@bob']) {
      expect(messageAddress(typed, 'a.example')).toEqual({
        ok: false,
        reason: expect.stringMatching(/address like @bob|Type who to write to/),
      });
    }
  });

  it('shortens addresses on this node to the handle', () => {
    expect(shortAddress('bob@a.example', 'a.example')).toBe('bob');
    expect(shortAddress('bob@b.example', 'a.example')).toBe('bob@b.example');
  });
});

describe('the status of a sent message', () => {
  const now = Date.parse('2026-11-23T15:00:00.000Z');

  it('reads sending, retrying with the time to the next attempt, sent, delivered, read', () => {
    expect(messageStatusText({ status: 'sending' }, now)).toBe('sending');
    // A new outbox row is due at once: still "sending".
    const due = { status: 'pending', nextAttemptAt: '2026-11-23T15:00:00.000Z' };
    expect(messageStatusText({ status: 'sending', delivery: due }, now)).toBe('sending');
    const later = { status: 'pending', nextAttemptAt: '2026-11-23T15:03:30.000Z' };
    expect(messageStatusText({ status: 'sending', delivery: later }, now)).toBe(
      'retrying, next in 4 min',
    );
    const soon = { status: 'pending', nextAttemptAt: '2026-11-23T15:00:20.000Z' };
    expect(messageStatusText({ status: 'sending', delivery: soon }, now)).toBe(
      'retrying, next in 20 s',
    );
    // The node says "retrying" once an attempt failed.
    expect(messageStatusText({ status: 'retrying', delivery: later }, now)).toBe(
      'retrying, next in 4 min',
    );
    expect(messageStatusText({ status: 'retrying', delivery: due }, now)).toBe('retrying now');
    for (const status of ['sent', 'delivered', 'read']) {
      expect(messageStatusText({ status }, now)).toBe(status);
    }
  });

  it('gives the reason of a failure', () => {
    expect(messageStatusText({ status: 'failed', failureReason: 'not accepted' }, now)).toBe(
      'failed: not accepted',
    );
    expect(messageStatusText({ status: 'failed' }, now)).toBe('failed: not delivered');
  });

  it('offers "Retry now" while the outbox retries, or once it gave up, not after a refusal', () => {
    const later = { status: 'pending', nextAttemptAt: '2026-11-23T15:03:30.000Z' };
    const due = { status: 'pending', nextAttemptAt: '2026-11-23T15:00:00.000Z' };
    const gaveUp = { status: 'failed', nextAttemptAt: null };
    expect(canRetryNow({ status: 'retrying', delivery: later }, now)).toBe(true);
    expect(canRetryNow({ status: 'retrying', delivery: due }, now)).toBe(true);
    expect(canRetryNow({ status: 'sending', delivery: later }, now)).toBe(true);
    expect(
      canRetryNow({ status: 'failed', failureReason: GAVE_UP_REASON, delivery: gaveUp }, now),
    ).toBe(true);
    // Being sent right now, already there, or refused by the other side: nothing to retry.
    expect(canRetryNow({ status: 'sending', delivery: due }, now)).toBe(false);
    for (const status of ['sent', 'delivered', 'read']) {
      expect(canRetryNow({ status, delivery: { status: 'delivered' } }, now)).toBe(false);
    }
    for (const failureReason of ['not accepted', 'no such person', 'User not found']) {
      expect(canRetryNow({ status: 'failed', failureReason, delivery: gaveUp }, now)).toBe(false);
    }
    // Failed on this node, with no outbox row (their node has no direct messages).
    expect(canRetryNow({ status: 'failed', failureReason: GAVE_UP_REASON }, now)).toBe(false);
  });
});

async function person(address: string) {
  const signing = await generateSigningKeyPair();
  const did = await publicKeyToDidKey(signing.publicKey);
  const { publicKey } = await generateEncryptionKey();
  const createdAt = '2026-11-23T15:00:00.000Z';
  const signature = await signEncryptionKey({
    signingKey: signing.privateKey,
    address,
    did,
    publicKey,
    createdAt,
  });
  const encryptionKey: EncryptionKey = { publicKey, createdAt, signature };
  return { address, did, encryptionKey };
}

describe("checking a recipient's key in the sender's browser", () => {
  it('accepts a key signed under the did, pins the did on first contact', async () => {
    const pins = createMemoryContactPins();
    const bob = await person('bob@b.example');
    expect(await checkRecipient(pins, bob)).toEqual({
      ok: true,
      did: bob.did,
      publicKey: bob.encryptionKey.publicKey,
      firstContact: true,
    });
    expect((await pins.get('bob@b.example'))?.did).toBe(bob.did);
    expect(await checkRecipient(pins, bob)).toMatchObject({ ok: true, firstContact: false });
  });

  it('refuses a key its node swapped (binding does not verify under the did)', async () => {
    const pins = createMemoryContactPins();
    const bob = await person('bob@b.example');
    const { publicKey: swapped } = await generateEncryptionKey();
    const forged = { ...bob, encryptionKey: { ...bob.encryptionKey, publicKey: swapped } };
    expect(await checkRecipient(pins, forged)).toMatchObject({ ok: false, problem: 'binding' });
    // A binding made for someone else's address does not transfer either.
    const carol = await person('carol@b.example');
    const moved = { ...carol, address: 'bob@b.example' };
    expect(await checkRecipient(pins, moved)).toMatchObject({ ok: false, problem: 'binding' });
    expect(await pins.get('bob@b.example')).toBeUndefined();
  });

  it('warns when the did changed since first contact, until the person trusts the new one', async () => {
    const pins = createMemoryContactPins();
    const before = await person('bob@b.example');
    await checkRecipient(pins, before);
    // A node that swaps the did too (and signs a binding with its own key) is caught by the pin.
    const after = await person('bob@b.example');
    expect(await checkRecipient(pins, after)).toEqual({
      ok: false,
      problem: 'did-changed',
      message: expect.stringMatching(/changed/),
      previousDid: before.did,
      did: after.did,
    });
    await trustNewDid(pins, 'bob@b.example', after.did);
    expect(await checkRecipient(pins, after)).toMatchObject({ ok: true, did: after.did });
  });

  it('says so when the recipient has no encryption key yet', async () => {
    const pins = createMemoryContactPins();
    const bob = await person('bob@b.example');
    expect(await checkRecipient(pins, { ...bob, encryptionKey: null })).toMatchObject({
      ok: false,
      problem: 'no-key',
    });
  });
});

/** Someone with both keys, as the browser holds them. */
async function account(address: string) {
  const signing = await generateSigningKeyPair();
  const did = await publicKeyToDidKey(signing.publicKey);
  const encryption = await generateEncryptionKey();
  return { address, did, signing: signing.privateKey, encryption };
}

type Account = Awaited<ReturnType<typeof account>>;

/**
 * A message signed by `from`'s signing key, claiming `did` as its signer (default: `from`'s), with
 * the sender's copy encrypted for `senderCopy` (default: `from`'s encryption key).
 */
async function seal(
  from: Account,
  to: Account,
  text: string,
  forged?: { did?: string; senderCopy?: string },
): Promise<Record<string, unknown>> {
  return {
    ...(await sealMessage({
      sender: from.address,
      senderDid: forged?.did ?? from.did,
      recipient: to.address,
      text,
      recipientPublicKey: to.encryption.publicKey,
      senderPublicKey: forged?.senderCopy ?? from.encryption.publicKey,
      signingKey: from.signing,
    })),
  };
}

describe('who wrote a message shown in a conversation', () => {
  it('opens a message from the partner under the did pinned for them, and my own under mine', async () => {
    const [alice, bob] = await Promise.all([account('alice@a.example'), account('bob@b.example')]);
    const fromAlice = await seal(alice, bob, 'Hello Bob');
    expect(
      await openInConversation({
        reader: bob,
        envelope: fromAlice,
        direction: 'in',
        partner: alice.address,
        partnerDid: alice.did,
      }),
    ).toEqual({ ok: true, text: 'Hello Bob' });
    // Alice reads her sent message in her own thread with bob.
    expect(
      await openInConversation({
        reader: alice,
        envelope: fromAlice,
        direction: directionOf(fromAlice, alice.address),
        partner: bob.address,
        partnerDid: bob.did,
      }),
    ).toEqual({ ok: true, text: 'Hello Bob' });
    expect(directionOf(fromAlice, bob.address)).toBe('in');
  });

  it("refuses a message 'from alice' that bob's node made with a key of its own", async () => {
    const [alice, bob, forger] = await Promise.all([
      account('alice@a.example'),
      account('bob@b.example'),
      account('alice@a.example'),
    ]);
    const pins = createMemoryContactPins();
    await pins.set(alice.address, { did: alice.did, pinnedAt: '2026-11-23T15:00:00.000Z' });
    const theirDid = await partnerDid(pins, alice.address, forger.did);
    // The pin wins over what the node reports now.
    expect(theirDid).toBe(alice.did);
    const refused = { ok: false, problem: 'sender', reason: UNVERIFIED_SENDER };
    const open = (envelope: Record<string, unknown>) =>
      openInConversation({
        reader: bob,
        envelope,
        direction: 'in',
        partner: alice.address,
        partnerDid: theirDid,
      });

    // Correctly signed, but under the forger's did: openMessage alone would accept it.
    const ownDid = await seal(forger, bob, 'Send me your password');
    expect(await open(ownDid)).toEqual(refused);
    // Alice's did written in, signed by the forger's key: the signature does not verify.
    const claimed = await seal(forger, bob, 'Send me your password', { did: alice.did });
    expect(await open(claimed)).toEqual(refused);
    // A real message of someone else, shown in the thread with alice.
    const carol = await account('carol@c.example');
    const fromCarol = await seal(carol, bob, 'Hi, Carol here');
    expect(await open(fromCarol)).toEqual(refused);
    // Alice's key, but as another address (a message to bob there, moved into this thread).
    const elsewhere = await seal({ ...alice, address: 'alice@old.example' }, bob, 'Old node');
    expect(await open(elsewhere)).toEqual(refused);
    // Alice's own message is still fine.
    expect(await open(await seal(alice, bob, 'The real one'))).toEqual({
      ok: true,
      text: 'The real one',
    });
  });

  it('pins the did the node reports at first contact; a forgery after it is refused', async () => {
    const [alice, bob, forger] = await Promise.all([
      account('alice@a.example'),
      account('bob@b.example'),
      account('alice@a.example'),
    ]);
    const pins = createMemoryContactPins();
    expect(await partnerDid(pins, 'Alice@A.example', null)).toBeNull();
    expect(await pins.get(alice.address)).toBeUndefined();
    expect(await partnerDid(pins, alice.address, alice.did)).toBe(alice.did);
    expect((await pins.get(alice.address))?.did).toBe(alice.did);
    const forged = await seal(forger, bob, 'Trust me');
    const theirDid = await partnerDid(pins, alice.address, forger.did);
    expect(theirDid).toBe(alice.did);
    expect(
      await openInConversation({
        reader: bob,
        envelope: forged,
        direction: 'in',
        partner: alice.address,
        partnerDid: theirDid,
      }),
    ).toMatchObject({ ok: false, problem: 'sender' });
    // No did known at all: nothing incoming is shown.
    expect(
      await openInConversation({
        reader: bob,
        envelope: await seal(alice, bob, 'Hi'),
        direction: 'in',
        partner: alice.address,
        partnerDid: null,
      }),
    ).toMatchObject({ ok: false, problem: 'sender' });
  });

  it('refuses an outgoing message in my thread that is not signed by my did', async () => {
    const [alice, bob, forger] = await Promise.all([
      account('alice@a.example'),
      account('bob@b.example'),
      account('alice@a.example'),
    ]);
    const open = (envelope: Record<string, unknown>, direction: 'in' | 'out') =>
      openInConversation({
        reader: alice,
        envelope,
        direction,
        partner: bob.address,
        partnerDid: bob.did,
      });
    // "Sent by me", made by someone else's key, with my copy encrypted for my (public) key: it
    // decrypts, but it is not mine.
    const senderCopy = alice.encryption.publicKey;
    const forged = await seal(forger, bob, 'I quit', { senderCopy });
    expect(await open(forged, 'out')).toMatchObject({ ok: false, problem: 'sender' });
    const claimed = await seal(forger, bob, 'I quit', { did: alice.did, senderCopy });
    expect(await open(claimed, 'out')).toMatchObject({ ok: false, problem: 'sender' });
    // My message to carol shown in the thread with bob; or the node calls mine incoming.
    const carol = await account('carol@c.example');
    expect(await open(await seal(alice, carol, 'Hi Carol'), 'out')).toMatchObject({
      ok: false,
      problem: 'sender',
    });
    const mine = await seal(alice, bob, 'Mine');
    expect(await open(mine, 'in')).toMatchObject({ ok: false, problem: 'sender' });
    expect(await open(mine, 'out')).toEqual({ ok: true, text: 'Mine' });
  });

  it('tells an unreadable message apart from an unverified sender', async () => {
    const [alice, bob, carol] = await Promise.all([
      account('alice@a.example'),
      account('bob@b.example'),
      account('carol@c.example'),
    ]);
    // Signed by alice, encrypted for a key bob's browser does not hold (carol's).
    const envelope = await seal(alice, bob, 'Hello');
    const input = { direction: 'in', partner: alice.address, partnerDid: alice.did } as const;
    expect(
      await openInConversation({
        ...input,
        reader: { ...bob, encryption: carol.encryption },
        envelope,
      }),
    ).toEqual({
      ok: false,
      problem: 'decrypt',
      reason: 'the message was not encrypted for this key',
    });
    expect(await openInConversation({ ...input, reader: bob, envelope: null })).toEqual({
      ok: false,
      problem: 'decrypt',
      reason: 'not a valid message envelope',
    });
  });
});
