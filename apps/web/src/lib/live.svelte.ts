import type { LiveState } from '@swarm/domain';
import { onMount, untrack } from 'svelte';
import { invalidateAll } from '$app/navigation';

// Live updates in the browser (issue #14): one EventSource per tab on `/events`, opened by the
// root layout while someone is signed in. Each `state` event is a snapshot (badge counts,
// versions of the person's messages and deliveries, the newest post of their home timeline);
// pages react to the parts they show with `onLiveChange`. Nothing here polls on a timer.

/** Wait after the page has loaded before opening the stream (the page's own requests first). */
const CONNECT_DELAY_MS = 3_000;
/** Reconnect back-off after the server refused or failed the stream (EventSource gave up). */
const BACKOFF_MS = [2_000, 5_000, 15_000, 60_000];

class Live {
  /** The latest snapshot, or null before the first. */
  state = $state<LiveState | null>(null);
  /** When `state` arrived (performance.now()). */
  at = $state(0);
  /** The stream is open. */
  connected = $state(false);
  /** Snapshots received since the page was opened (tests wait on this). */
  received = $state(0);
}

export const live = new Live();

/**
 * Opens the stream and keeps it open: EventSource reconnects by itself after a dropped
 * connection (the first snapshot after it resyncs the page); when the server refused it (429,
 * 401 after a sign-out elsewhere) the page's data is reloaded, then it tries again later.
 * Returns the function that closes it.
 */
export function connectLive(): () => void {
  let source: EventSource | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let failures = 0;
  let stopped = false;

  const open = () => {
    timer = undefined;
    if (stopped) return;
    const es = (source = new EventSource('/events'));
    es.addEventListener('open', () => {
      live.connected = true;
      document.documentElement.dataset.live = 'open';
    });
    es.addEventListener('state', (event) => {
      failures = 0;
      try {
        live.state = JSON.parse((event as MessageEvent<string>).data) as LiveState;
        live.at = performance.now();
        live.received += 1;
      } catch {
        // A malformed event is skipped; the next snapshot carries everything again.
      }
    });
    es.addEventListener('error', () => {
      live.connected = false;
      document.documentElement.dataset.live = 'closed';
      if (es.readyState !== EventSource.CLOSED || stopped) return; // reconnecting by itself
      const wait = BACKOFF_MS[Math.min(failures, BACKOFF_MS.length - 1)]!;
      failures += 1;
      // Signed out meanwhile? The reloaded layout then has no user and closes this for good.
      void invalidateAll();
      timer = setTimeout(open, wait);
    });
  };

  timer = setTimeout(open, CONNECT_DELAY_MS);
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    source?.close();
    live.connected = false;
    live.state = null;
    delete document.documentElement.dataset.live;
  };
}

/**
 * Calls `changed` whenever the part of the snapshot `select` picks changes while the component
 * is mounted, and once for the first snapshot that arrives after it mounted (the page's data may
 * be older). Call it during component initialisation.
 */
export function onLiveChange(
  select: (state: LiveState) => unknown,
  changed: (state: LiveState) => void,
): void {
  let mountedAt = Infinity;
  let last: string | undefined;
  onMount(() => {
    mountedAt = performance.now();
  });
  $effect(() => {
    const state = live.state;
    if (!state) return;
    const value = JSON.stringify(select(state));
    const seen = last;
    last = value;
    if (value === seen) return;
    if (seen !== undefined || live.at >= mountedAt) untrack(() => changed(state));
  });
}
