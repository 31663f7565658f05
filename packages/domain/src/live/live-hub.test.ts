import type { Db } from '@swarm/db';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../clock.ts';
import { createLifecycle } from '../lifecycle.ts';
import { createLogger } from '../logger.ts';
import { createLocalInvalidations } from '../replicas/invalidations.ts';
import { createLiveHub } from './live-hub.ts';

// The hub's bookkeeping around shutdown; the snapshots themselves are tested on a running node
// (packages/testnet/test/live-events.process.test.ts).
function hub() {
  const lifecycle = createLifecycle();
  const live = createLiveHub({
    db: {} as Db, // no stream reaches a snapshot in these tests
    clock: systemClock,
    logger: createLogger('silent'),
    invalidations: createLocalInvalidations(),
    lifecycle,
    options: { maxStreams: 10, maxPerUser: 5 },
    domain: 'node.example',
  });
  return { lifecycle, live };
}

function sink() {
  const written: string[] = [];
  let ended = 0;
  return {
    written,
    ended: () => ended,
    sink: { write: (text: string) => void written.push(text), end: () => void ended++ },
  };
}

describe('live hub and shutdown', () => {
  it('ends the open streams once when the shutdown begins', () => {
    const { lifecycle, live } = hub();
    const opened = live.open({ userId: 'u1', sessionId: 's1' });
    if (!opened.ok) throw new Error(opened.message);
    const s = sink();
    opened.stream.attach(s.sink);
    expect(live.size()).toBe(1);
    lifecycle.beginShutdown();
    expect(s.ended()).toBe(1);
    expect(live.size()).toBe(0);
  });

  it('answers a stream asked for while draining with one that ends at once and holds nothing', () => {
    const { lifecycle, live } = hub();
    lifecycle.beginShutdown();
    const opened = live.open({ userId: 'u1', sessionId: 's1' });
    expect(opened.ok).toBe(true);
    if (!opened.ok) return;
    const s = sink();
    opened.stream.attach(s.sink);
    expect(s.ended()).toBe(1);
    expect(s.written).toEqual([]);
    expect(live.size()).toBe(0);
  });
});
