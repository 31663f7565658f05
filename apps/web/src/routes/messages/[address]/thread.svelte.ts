import { checkMessageText, sealMessage } from '@swarm/contract';
import { invalidate } from '$app/navigation';
import { onLiveChange } from '$lib/live.svelte';
import { shortAddress } from '$lib/messages/address';
import { idbContactPins } from '$lib/messages/contact-pins';
import { envelopeObject, sendReceipt } from '$lib/messages/decrypt';
import { messagingState, type MessagingState } from '$lib/messages/my-keys';
import { createLastValues, createOnce } from '$lib/messages/once';
import { checkRecipient, trustNewDid, type RecipientTrust } from '$lib/messages/recipient-trust';
import { nodeRefused, retryMessageNow } from '$lib/messages/retry';
import { canRetryNow, messageStatusText } from '$lib/messages/status';
import { openInConversation, partnerDid, type Opened } from '$lib/messages/verify-sender';
import { trpc } from '$lib/trpc';
import type { PageData } from './$types';

// The state of one open conversation (issue #16: the thread page's effects in one small store):
// the keys on both sides, the messages as the node last told them plus those sent from here,
// their decrypted texts, receipts, retries and what screen readers are told. The page renders
// it; live updates (`/events`) tell it when to ask the node again, no timer does.

export interface Entry {
  id: string;
  envelope: Record<string, unknown>;
  direction: 'in' | 'out';
  status: string;
  failureReason?: string | null;
  delivery?: { id: string; status: string; nextAttemptAt?: string | null } | null;
  createdAt: string;
  /** Sent from this page and the node did not answer: "Retry now" sends it again. */
  resend?: boolean;
}

type ThreadMessage = PageData['thread']['messages'][number];

function entryOf(m: ThreadMessage): Entry | null {
  const envelope = envelopeObject(m.envelope);
  if (!envelope || typeof envelope.id !== 'string') return null;
  return {
    id: envelope.id,
    envelope,
    direction: m.direction,
    status: m.status,
    failureReason: m.failureReason,
    delivery: m.delivery,
    createdAt: typeof envelope.createdAt === 'string' ? envelope.createdAt : '',
  };
}

/** Clock for "3 min ago" and retry countdowns: display only, nothing is fetched on it. */
const CLOCK_MS = 15_000;

/** Call during the page's initialisation (it sets up effects); `data` is the page's data. */
export class ThreadStore {
  keyState = $state<MessagingState>({ kind: 'checking' });
  /** The recipient's key, checked here (signature under their did, pinned on first contact). */
  trust = $state<RecipientTrust | null>(null);
  /**
   * Whose signature incoming messages must carry: the did pinned for them here, or (first
   * contact) the one their node reports, pinned now. `undefined` while looking it up.
   */
  theirDid = $state<string | null | undefined>(undefined);
  /** The thread as the node last told it (the page's data, then each refresh). */
  fetched = $derived.by<Entry[]>(() =>
    this.data()
      .thread.messages.map(entryOf)
      .filter((e) => e !== null),
  );
  /** Sent from this page and not yet in the node's answer (or refused by it). */
  pending = $state<Entry[]>([]);
  /** Decrypted texts by message id (only ever in this browser). */
  texts = $state<Record<string, Opened>>({});
  /** Status changes of my messages, read out by screen readers. */
  announcement = $state('');
  now = $state(Date.now());
  /** Per message: a retry under way, or why it did not work. */
  retries = $state<Record<string, { busy: boolean; error?: string }>>({});

  readonly entries = $derived.by(() => {
    // A lookup table local to this computation, not state.
    // eslint-disable-next-line svelte/prefer-svelte-reactivity
    const known = new Set(this.fetched.map((e) => e.id));
    return [...this.fetched, ...this.pending.filter((e) => !known.has(e.id))].sort((a, b) =>
      a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0,
    );
  });

  #started = createOnce();
  #receipted = createOnce();
  #lastStatus = createLastValues();

  /** The page's data (read through this, so a new conversation's data is seen). */
  private readonly data: () => PageData;

  constructor(data: () => PageData) {
    this.data = data;
    $effect(() => void this.checkKeys());
    $effect(() => void this.checkTrust());
    $effect(() => void this.checkPartner());
    $effect(() => this.#openAndReceipt());
    $effect(() => this.#announce());
    // Statuses move (sent → delivered → read) and answers arrive while the thread is open.
    onLiveChange(
      (state) => [state.messages.version, state.deliveries.version],
      () => void this.refresh(),
    );
    $effect(() => {
      const clock = setInterval(() => (this.now = Date.now()), CLOCK_MS);
      const onVisible = () => {
        // Receipts wait for the tab to be seen: "read" once it is.
        if (document.visibilityState === 'visible') void this.refresh();
      };
      document.addEventListener('visibilitychange', onVisible);
      return () => {
        clearInterval(clock);
        document.removeEventListener('visibilitychange', onVisible);
      };
    });
  }

  get who(): string {
    const data = this.data();
    return shortAddress(data.address, data.info.domain);
  }

  async checkKeys() {
    const data = this.data();
    this.keyState = await messagingState(data.user!.handle, data.me);
  }

  async checkTrust() {
    const data = this.data();
    this.trust = data.recipient.ok
      ? await checkRecipient(idbContactPins, data.recipient.value)
      : null;
  }

  async checkPartner() {
    const data = this.data();
    const reported = (data.recipient.ok ? data.recipient.value.did : null) ?? data.thread.with.did;
    const did = await partnerDid(idbContactPins, data.address, reported);
    if (did === this.theirDid) return;
    // Messages checked against another did (before "Trust the new key") are checked again.
    this.texts = {};
    this.#started = createOnce();
    this.theirDid = did;
  }

  async trustChangedKey() {
    const trust = this.trust;
    if (trust?.ok === false && trust.problem === 'did-changed') {
      await trustNewDid(idbContactPins, this.data().address, trust.did);
      await this.checkTrust();
      await this.checkPartner();
    }
  }

  /** Decrypts what is new; an incoming message shown in a visible tab is receipted "read". */
  #openAndReceipt() {
    const keyState = this.keyState;
    if (keyState.kind !== 'ready' || this.theirDid === undefined) return;
    const keys = keyState.keys;
    const did = this.theirDid;
    const partner = this.data().address;
    for (const entry of this.entries) {
      if (this.#started.first(entry.id)) {
        void openInConversation({
          reader: keys,
          envelope: entry.envelope,
          direction: entry.direction,
          partner,
          partnerDid: did,
        }).then((opened) => {
          // An answer for a did given up on meanwhile ("Trust the new key") is dropped.
          if (did === this.theirDid) this.texts[entry.id] = opened;
        });
      }
      const opened = this.texts[entry.id];
      if (entry.direction !== 'in' || !opened?.ok || entry.status === 'read') continue;
      // Shown in an open thread: read. Fetched while the tab is hidden: delivered only.
      const status = document.visibilityState === 'visible' ? 'read' : 'delivered';
      if (status === 'delivered' && entry.status === 'delivered') continue;
      const key = `${entry.id}:${status}`;
      if (!this.#receipted.first(key)) continue;
      const sender = String(entry.envelope.sender);
      void sendReceipt(keys, { id: entry.id, sender }, status)
        // The nav badge counts unread messages: this one no longer is.
        .then(() => (status === 'read' ? invalidate('app:unread') : undefined))
        .catch(() => this.#receipted.forget(key));
    }
  }

  #announce() {
    const changes: string[] = [];
    for (const entry of this.entries) {
      if (entry.direction !== 'out') continue;
      // The status itself, not the countdown: "retrying, next in 3 min" ticking is not news.
      if (this.#lastStatus.changed(entry.id, entry.status)) changes.push(this.statusText(entry));
    }
    if (changes.length) this.announcement = `Your message to ${this.who}: ${changes.at(-1)}`;
  }

  statusText(entry: Entry): string {
    return messageStatusText(entry, this.now);
  }

  retryable(entry: Entry): boolean {
    return entry.direction === 'out' && (entry.resend === true || canRetryNow(entry, this.now));
  }

  async refresh() {
    try {
      const thread = await trpc.messages.thread.query({ with: this.data().address });
      this.now = Date.now();
      this.fetched = thread.messages.map(entryOf).filter((e) => e !== null);
    } catch {
      // Offline or signed out: the next live update tries again.
    }
  }

  /** Encrypts and sends `draft`; answers an error to show, or null when it went (or is queued). */
  async send(draft: string): Promise<string | null> {
    const keyState = this.keyState;
    const trust = this.trust;
    if (keyState.kind !== 'ready' || !trust?.ok) return null;
    const text = checkMessageText(draft);
    if (!text.ok) return `${text.reason}.`;
    const keys = keyState.keys;
    let envelope;
    try {
      envelope = await sealMessage({
        sender: keys.address,
        senderDid: keys.did,
        recipient: this.data().address,
        text: text.value,
        recipientPublicKey: trust.publicKey,
        senderPublicKey: keys.encryption.publicKey,
        signingKey: keys.signing,
      });
    } catch (cause) {
      return cause instanceof Error ? cause.message : 'The message could not be encrypted.';
    }
    const entry: Entry = {
      id: envelope.id,
      envelope,
      direction: 'out',
      status: 'sending',
      createdAt: envelope.createdAt,
    };
    this.texts[entry.id] = { ok: true, text: text.value };
    this.#started.first(entry.id);
    this.pending = [...this.pending, entry];
    void this.#deliver(entry.id, envelope);
    return null;
  }

  async #deliver(id: string, envelope: Record<string, unknown>) {
    try {
      const answer = await trpc.messages.send.mutate({ envelope });
      this.#setPending(id, { status: answer.status });
      await this.refresh();
    } catch (cause) {
      this.#failLocally(id, cause);
    }
  }

  #setPending(id: string, change: Partial<Entry>) {
    this.pending = this.pending.map((e) => (e.id === id ? { ...e, ...change } : e));
  }

  #failLocally(id: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : 'the node did not answer';
    this.#setPending(id, { status: 'failed', failureReason: reason, resend: !nodeRefused(cause) });
  }

  async retryNow(entry: Entry) {
    this.retries[entry.id] = { busy: true };
    if (entry.resend) {
      // The node never answered the send: send the same envelope again (idempotent by its id).
      this.#setPending(entry.id, { status: 'sending', failureReason: null, resend: false });
      try {
        const answer = await trpc.messages.send.mutate({ envelope: entry.envelope });
        this.#setPending(entry.id, { status: answer.status });
      } catch (cause) {
        this.#failLocally(entry.id, cause);
      }
      this.retries[entry.id] = { busy: false };
    } else {
      const retried = await retryMessageNow(entry.delivery ?? undefined);
      this.retries[entry.id] = retried.ok
        ? { busy: false }
        : { busy: false, error: retried.reason };
    }
    await this.refresh();
  }
}
