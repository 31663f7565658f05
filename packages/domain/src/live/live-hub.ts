import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { Lifecycle } from '../lifecycle.ts';
import type { Logger } from '../logger.ts';
import { READS_TOPIC, type Invalidations } from '../replicas/invalidations.ts';
import { liveSessionsSql, liveStateSql } from '../persistence/live.sql.ts';

/**
 * Live updates for signed-in people (issue #14, docs/decisions.md "Live updates"): each open
 * page holds one server-sent event stream; the hub sends it a small snapshot of what the page
 * shows live (badge counts, versions of the user's messages and deliveries, the newest post of
 * their home timeline) whenever that snapshot changes.
 *
 * Snapshots, not deltas: any write anywhere on the node (a tRPC mutation, a peer's like on a
 * gateway, a retried delivery) publishes on the node's invalidation bus (`READS_TOPIC`, or
 * `LIVE_TOPIC` for background work), whichever process made it; every process holding streams
 * then recomputes the snapshots of its connected users with one query, coalesced over a short
 * window, and sends those that changed. A reconnecting stream gets the current snapshot first,
 * so nothing is lost while it was away and no event log (Last-Event-ID) is needed.
 */

/** Background work that changed what live pages show (the delivery worker) publishes this. */
export const LIVE_TOPIC = 'live';

export interface LiveState {
  notifications: { unread: number; latest: string | null };
  messages: { unread: number; version: string };
  deliveries: { version: string };
  /** Newest top-level post of the home timeline: the user's, a followed local or remote person's. */
  home: { latest: string | null };
}

/** Where a stream's text goes (the HTTP response body). */
export interface LiveSink {
  write(text: string): void;
  /** Ends the response (the stream was closed by the hub: signed out, shutting down). */
  end(): void;
}

export interface LiveStream {
  /** Starts sending (the first snapshot follows soon). */
  attach(sink: LiveSink): void;
  /** The client went away: frees the slot. */
  close(): void;
}

export type LiveOpenResult =
  { ok: true; stream: LiveStream } | { ok: false; reason: 'process' | 'user'; message: string };

export interface LiveHub {
  /** Reserves a stream for a signed-in session, or refuses when a bound is reached. */
  open(input: { userId: string; sessionId: string }): LiveOpenResult;
  /** Streams open in this process. */
  size(): number;
  /** Recomputes and sends now (tests and the benchmark; events schedule this by themselves). */
  refresh(): Promise<void>;
  /** Ends every stream (shutdown). */
  closeAll(): void;
}

export interface LiveHubOptions {
  maxStreams: number;
  maxPerUser: number;
  /** Events within this window cause one recomputation. */
  coalesceMs?: number;
  /** A comment line this often keeps proxies from timing the stream out. */
  keepAliveMs?: number;
  /** What a browser waits before reconnecting (the `retry:` field). */
  retryMs?: number;
}

export const LIVE_DEFAULTS = { coalesceMs: 150, keepAliveMs: 25_000, retryMs: 3_000 } as const;
/** Users whose snapshots one query computes. */
const USERS_PER_QUERY = 500;

interface Entry {
  id: number;
  userId: string;
  sessionId: string;
  sink?: LiveSink;
  /** JSON of the last snapshot sent; undefined before the first. */
  last?: string;
  closed: boolean;
}

interface Row {
  user_id: string;
  unread_notifications: number;
  latest_notification: Date | null;
  unread_messages: number;
  messages_version: string | null;
  deliveries_version: string | null;
  home_latest: Date | null;
}

function stateOf(row: Row): LiveState {
  return {
    notifications: {
      unread: Number(row.unread_notifications),
      latest: row.latest_notification ? new Date(row.latest_notification).toISOString() : null,
    },
    messages: { unread: Number(row.unread_messages), version: row.messages_version ?? '' },
    deliveries: { version: row.deliveries_version ?? '' },
    home: { latest: row.home_latest ? new Date(row.home_latest).toISOString() : null },
  };
}

export function createLiveHub(deps: {
  db: Db;
  clock: Clock;
  logger: Logger;
  invalidations: Invalidations;
  lifecycle?: Lifecycle;
  options: LiveHubOptions;
  /** This node's domain (addresses of mutes and blocks in the snapshot's counts). */
  domain: string;
}): LiveHub {
  const { db, clock, logger, invalidations } = deps;
  const options = { ...LIVE_DEFAULTS, ...deps.options };
  const streams = new Map<number, Entry>();
  const perUser = new Map<string, number>();
  let nextId = 1;
  let eventId = 0;
  let unsubscribe: (() => void)[] = [];
  let keepAlive: ReturnType<typeof setInterval> | undefined;
  /** Everyone must be recomputed (an event came); else only streams without a first snapshot. */
  let allDirty = false;
  let fresh = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | undefined;

  function listen() {
    if (unsubscribe.length > 0) return;
    const changed = () => schedule(true);
    unsubscribe = [
      invalidations.subscribe(READS_TOPIC, changed),
      invalidations.subscribe(LIVE_TOPIC, changed),
    ];
    keepAlive = setInterval(() => {
      for (const entry of streams.values()) write(entry, ': keep-alive\n\n');
    }, options.keepAliveMs);
    keepAlive.unref?.();
  }

  function quiet() {
    for (const off of unsubscribe) off();
    unsubscribe = [];
    clearInterval(keepAlive);
    keepAlive = undefined;
  }

  function write(entry: Entry, text: string) {
    if (!entry.sink || entry.closed) return;
    try {
      entry.sink.write(text);
    } catch {
      release(entry);
    }
  }

  function release(entry: Entry) {
    if (entry.closed) return;
    entry.closed = true;
    streams.delete(entry.id);
    const left = (perUser.get(entry.userId) ?? 1) - 1;
    if (left > 0) perUser.set(entry.userId, left);
    else perUser.delete(entry.userId);
    if (streams.size === 0) quiet();
  }

  function end(entry: Entry) {
    const sink = entry.sink;
    release(entry);
    try {
      sink?.end();
    } catch {
      // already gone
    }
  }

  function schedule(all: boolean) {
    if (all) allDirty = true;
    else fresh = true;
    if (timer || streams.size === 0) return;
    timer = setTimeout(() => {
      timer = undefined;
      void run();
    }, options.coalesceMs);
    timer.unref?.();
  }

  async function run(): Promise<void> {
    // One recomputation at a time; events meanwhile make one more afterwards.
    if (running) {
      await running;
      if (allDirty || fresh) return run();
      return;
    }
    const all = allDirty;
    allDirty = false;
    fresh = false;
    running = recompute(all).finally(() => (running = undefined));
    await running;
    if (allDirty || fresh) schedule(allDirty);
  }

  async function recompute(all: boolean) {
    const targets = [...streams.values()].filter((e) => e.sink && (all || e.last === undefined));
    if (targets.length === 0) return;
    try {
      const sessions = [...new Set(targets.map((e) => e.sessionId))];
      const alive = new Set(
        (await db.prisma.$queryRaw<{ id: string }[]>(liveSessionsSql(sessions, clock.now()))).map(
          (r) => r.id,
        ),
      );
      // Signed out (or expired) meanwhile: the stream ends; the browser's reconnect gets a 401.
      for (const entry of targets) if (!alive.has(entry.sessionId)) end(entry);
      const users = [...new Set(targets.filter((e) => !e.closed).map((e) => e.userId))];
      const states = new Map<string, string>();
      for (let i = 0; i < users.length; i += USERS_PER_QUERY) {
        const rows = await db.prisma.$queryRaw<Row[]>(
          liveStateSql(users.slice(i, i + USERS_PER_QUERY), deps.domain),
        );
        for (const row of rows) states.set(row.user_id, JSON.stringify(stateOf(row)));
      }
      for (const entry of targets) {
        const state = states.get(entry.userId);
        if (entry.closed || state === undefined || state === entry.last) continue;
        entry.last = state;
        eventId += 1;
        write(entry, `id: ${eventId}\nevent: state\ndata: ${state}\n\n`);
      }
    } catch (err) {
      // The next event tries again; the streams stay open meanwhile.
      logger.warn({ err }, 'live updates: could not compute the snapshots');
    }
  }

  const hub: LiveHub = {
    open({ userId, sessionId }) {
      // Draining: a page that reconnects now (EventSource does so at once when its stream ended)
      // gets a stream that ends at once, not one the drain would cut mid-response; it comes back
      // later to whichever process is then up.
      if (deps.lifecycle?.shuttingDown) {
        return { ok: true, stream: { attach: (sink) => sink.end(), close: () => undefined } };
      }
      if (streams.size >= options.maxStreams) {
        return {
          ok: false,
          reason: 'process',
          message: 'This server holds as many live streams as it can; try again later.',
        };
      }
      if ((perUser.get(userId) ?? 0) >= options.maxPerUser) {
        return {
          ok: false,
          reason: 'user',
          message: `At most ${options.maxPerUser} live streams per person: close other tabs.`,
        };
      }
      const entry: Entry = { id: nextId++, userId, sessionId, closed: false };
      streams.set(entry.id, entry);
      perUser.set(userId, (perUser.get(userId) ?? 0) + 1);
      listen();
      return {
        ok: true,
        stream: {
          attach(sink) {
            if (entry.closed) {
              sink.end();
              return;
            }
            entry.sink = sink;
            write(entry, `retry: ${options.retryMs}\n\n`);
            schedule(false);
          },
          close: () => release(entry),
        },
      };
    },
    size: () => streams.size,
    async refresh() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      allDirty = true;
      await run();
    },
    closeAll() {
      for (const entry of [...streams.values()]) end(entry);
    },
  };
  deps.lifecycle?.onShutdown?.(() => hub.closeAll());
  return hub;
}
