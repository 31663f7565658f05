import Table from 'cli-table3';

/** A plain, readable table for terminals and logs (no colours: output is often piped). */
export function table(
  head: string[],
  rows: (string | number | boolean | null | undefined)[][],
): string {
  const t = new Table({ head, style: { head: [], border: [] } });
  for (const row of rows)
    t.push(row.map((cell) => (cell === null || cell === undefined ? '–' : String(cell))));
  return t.toString();
}

/** "3 min ago" from an ISO timestamp, for people scanning a nodes list. */
export function ago(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return 'never';
  const s = Math.round((now - Date.parse(iso)) / 1000);
  if (Number.isNaN(s)) return iso;
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86_400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86_400)} d ago`;
}

/**
 * Admin actions answer a report; when it lists per-peer results, show them as a table, otherwise
 * print the JSON as it came (the report shape belongs to the gateway).
 */
export function formatReport(report: unknown): string {
  const results = (report as { results?: unknown })?.results;
  if (Array.isArray(results) && results.every((r) => typeof r === 'object' && r !== null)) {
    const rows = results.map((r: Record<string, unknown>) => [
      String(r.domain ?? ''),
      r.ok ? 'ok' : 'failed',
      typeof r.ms === 'number' ? `${r.ms} ms` : '',
      typeof r.error === 'string' ? r.error : '',
    ]);
    const failed = rows.filter((r) => r[1] === 'failed').length;
    return `${table(['peer', 'result', 'time', 'error'], rows)}\n${rows.length - failed} ok, ${failed} failed`;
  }
  return JSON.stringify(report, null, 2);
}
