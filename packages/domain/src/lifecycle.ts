/** Whether the process is shutting down: readiness turns false first, then the server drains. */
export interface Lifecycle {
  readonly shuttingDown: boolean;
  beginShutdown(): void;
  /** Called once when the shutdown begins (long-lived streams end so the drain can finish). */
  onShutdown?(listener: () => void): void;
}

export function createLifecycle(): Lifecycle {
  let shuttingDown = false;
  const listeners: (() => void)[] = [];
  return {
    get shuttingDown() {
      return shuttingDown;
    },
    beginShutdown() {
      if (shuttingDown) return;
      shuttingDown = true;
      for (const listener of listeners.splice(0)) listener();
    },
    onShutdown(listener) {
      if (shuttingDown) listener();
      else listeners.push(listener);
    },
  };
}
