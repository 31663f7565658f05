import { describe, expect, it } from 'vitest';
import { coalescedSends } from './invalidations.ts';

describe('coalescedSends (publishes under load)', () => {
  it('answers each publish after a message sent after it began, sharing the one after', async () => {
    const sent: { topic: string; release: () => void }[] = [];
    const send = coalescedSends(
      (topic) => new Promise<void>((release) => sent.push({ topic, release })),
    );
    const done: string[] = [];
    const first = send('reads').then(() => done.push('first'));
    expect(sent).toHaveLength(1);
    // Three more while the first message is in flight: they share the next one.
    const later = [1, 2, 3].map((n) => send('reads').then(() => done.push(`later ${n}`)));
    const other = send('other').then(() => done.push('other'));
    expect(sent.map((s) => s.topic)).toEqual(['reads', 'other']);
    sent[0]!.release();
    await first;
    await new Promise((r) => setImmediate(r));
    // The first is answered; the later ones wait for their own message, now sent.
    expect(done).toEqual(['first']);
    expect(sent.map((s) => s.topic)).toEqual(['reads', 'other', 'reads']);
    sent[2]!.release();
    await Promise.all(later);
    expect(done).toEqual(['first', 'later 1', 'later 2', 'later 3']);
    sent[1]!.release();
    await other;
    // Nothing in flight: the next publish sends at once.
    void send('reads');
    expect(sent).toHaveLength(4);
  });
});
