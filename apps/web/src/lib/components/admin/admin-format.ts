/** "840 ms" below a second, "2.4 s" from a second up. */
export function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

export function yesNo(value: boolean): string {
  return value ? 'Yes' : 'No';
}

/** App path of a node's admin page (domains may carry a port or IPv6 brackets). */
export function nodePath(domain: string): string {
  return `/admin/nodes/${encodeURIComponent(domain)}`;
}
