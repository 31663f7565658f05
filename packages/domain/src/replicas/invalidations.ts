import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.ts';

/**
 * "Something changed that cached reads may show", told to every process of the node
 * (docs/deployment.md "Replicas"). A process that changed data invalidates its own caches and
 * publishes; the others hear it and drop theirs, so a write on one replica is seen by a read
 * on another at once instead of after the cache's TTL.
 */
/** Public reads changed: the gateways' read caches drop (any process's write publishes it). */
export const READS_TOPIC = 'reads';

export interface Invalidations {
  /** Tells the other processes (best effort: a failure is logged, the TTL still bounds staleness). */
  publish(topic: string): Promise<void>;
  /** Called when another process published `topic` (and after a lost connection came back). */
  subscribe(topic: string, listener: () => void): () => void;
  /** Resolves once this process hears the others (its subscription is in place). */
  listening(): Promise<void>;
  close(): Promise<void>;
}

type Listeners = Map<string, Set<() => void>>;

function listenersOf(map: Listeners, topic: string): Set<() => void> {
  let set = map.get(topic);
  if (!set) map.set(topic, (set = new Set()));
  return set;
}

function notifyAll(map: Listeners, topic?: string) {
  for (const [t, set] of map) if (topic === undefined || t === topic) for (const fn of set) fn();
}

/**
 * One process (embedded mode): nobody else to tell, but the web app and the gateway share it, so
 * a publish reaches this process's own listeners. (Every bus does that: a listener may be told
 * of a change it made itself, which costs one more cache drop.)
 */
export function createLocalInvalidations(): Invalidations {
  const listeners: Listeners = new Map();
  return {
    async publish(topic) {
      notifyAll(listeners, topic);
    },
    subscribe(topic, listener) {
      listenersOf(listeners, topic).add(listener);
      return () => listeners.get(topic)?.delete(listener);
    },
    async listening() {},
    async close() {},
  };
}

/**
 * Group commit for publishes (issue #24): every successful write publishes, and under load one
 * message per write was a round trip per request. A publish resolves once a message sent after
 * it began has gone out: the first starts one at once, those arriving while it is in flight
 * share the next, sent when it is done. So the others still hear of every write before its
 * answer leaves; `send` must not throw.
 */
export function coalescedSends(
  send: (topic: string) => Promise<void>,
): (topic: string) => Promise<void> {
  const topics = new Map<string, { running?: Promise<void>; next?: Promise<void> }>();
  return (topic) => {
    let state = topics.get(topic);
    if (!state) topics.set(topic, (state = {}));
    const s = state;
    const start = (): Promise<void> => {
      const sent: Promise<void> = send(topic).finally(() => {
        if (s.running === sent) s.running = undefined;
      });
      s.running = sent;
      return sent;
    };
    if (s.next) return s.next;
    if (!s.running) return start();
    s.next = s.running.then(() => {
      s.next = undefined;
      return start();
    });
    return s.next;
  };
}

const CHANNEL = 'swarm_invalidate';
/** Wait before listening again after the connection dropped. */
const RELISTEN_MS = 1_000;

/**
 * Postgres LISTEN/NOTIFY on the node's database: NOTIFY through the pool, LISTEN on one
 * dedicated connection opened on the first subscription. When that connection drops, it is
 * reopened and every listener is called once (notifications may have been missed meanwhile).
 */
export function createPostgresInvalidations(deps: {
  pool: pg.Pool;
  logger: Logger;
}): Invalidations {
  const { pool, logger } = deps;
  // Messages carry the sender's id; a bus skips its own.
  const SENDER = randomUUID();
  const listeners: Listeners = new Map();
  let client: pg.Client | undefined;
  let connecting: Promise<void> | undefined;
  let retry: NodeJS.Timeout | undefined;
  let closed = false;

  function listen(): Promise<void> {
    if (client || connecting || closed) return connecting ?? Promise.resolve();
    const next = new pg.Client(pool.options);
    connecting = (async () => {
      next.on('notification', (msg) => {
        const [sender, topic] = (msg.payload ?? '').split(' ', 2);
        if (sender !== SENDER && topic) notifyAll(listeners, topic);
      });
      next.on('error', (err) => {
        logger.warn({ err }, 'cache invalidation: lost the LISTEN connection; reconnecting');
        drop(next);
      });
      next.on('end', () => drop(next));
      await next.connect();
      await next.query(`LISTEN ${CHANNEL}`);
      if (closed) {
        await next.end();
        return;
      }
      client = next;
    })()
      .catch((err: unknown) => {
        logger.warn({ err }, 'cache invalidation: cannot LISTEN; retrying');
        drop(next);
      })
      .finally(() => (connecting = undefined));
    return connecting;
  }

  function drop(which: pg.Client) {
    if (client === which) client = undefined;
    which.end().catch(() => {});
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      // Whatever was published while deaf: drop the caches once.
      void listen().then(() => client && notifyAll(listeners));
    }, RELISTEN_MS);
    retry.unref();
  }

  const notify = coalescedSends(async (topic) => {
    try {
      await pool.query('SELECT pg_notify($1, $2)', [CHANNEL, `${SENDER} ${topic}`]);
    } catch (err) {
      logger.warn({ err }, 'cache invalidation: NOTIFY failed');
    }
  });

  return {
    async publish(topic) {
      notifyAll(listeners, topic);
      await notify(topic);
    },
    subscribe(topic, listener) {
      listenersOf(listeners, topic).add(listener);
      void listen();
      return () => listeners.get(topic)?.delete(listener);
    },
    async listening() {
      await listen();
    },
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      await connecting;
      await client?.end().catch(() => {});
      client = undefined;
    },
  };
}

/** Redis pub/sub (`REDIS_URL`): publish on the shared client, subscribe on a duplicate. */
export function createRedisInvalidations(deps: {
  redis: Redis;
  prefix: string;
  logger: Logger;
}): Invalidations {
  const { redis, logger } = deps;
  const channel = `${deps.prefix}invalidate`;
  const SENDER = randomUUID();
  const listeners: Listeners = new Map();
  let subscriber: Redis | undefined;
  let subscribed: Promise<void> = Promise.resolve();

  function listen() {
    if (subscriber) return;
    const sub = (subscriber = redis.duplicate());
    sub.on('message', (_channel: string, message: string) => {
      const [sender, topic] = message.split(' ', 2);
      if (sender !== SENDER && topic) notifyAll(listeners, topic);
    });
    // ioredis resubscribes by itself after a reconnect; what was missed meanwhile is dropped.
    let connectedBefore = false;
    sub.on('ready', () => {
      if (connectedBefore) notifyAll(listeners);
      connectedBefore = true;
    });
    sub.on('error', (err: Error) =>
      logger.warn({ err }, 'cache invalidation: Redis subscriber error'),
    );
    subscribed = sub.subscribe(channel).then(
      () => {},
      (err: unknown) => logger.warn({ err }, 'cache invalidation: cannot SUBSCRIBE'),
    );
  }

  const send = coalescedSends(async (topic) => {
    try {
      await redis.publish(channel, `${SENDER} ${topic}`);
    } catch (err) {
      logger.warn({ err }, 'cache invalidation: PUBLISH failed');
    }
  });

  return {
    async publish(topic) {
      notifyAll(listeners, topic);
      await send(topic);
    },
    subscribe(topic, listener) {
      listenersOf(listeners, topic).add(listener);
      listen();
      return () => listeners.get(topic)?.delete(listener);
    },
    listening: () => subscribed,
    async close() {
      subscriber?.disconnect();
      subscriber = undefined;
    },
  };
}
