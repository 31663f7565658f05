import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';

export interface BenchRow {
  name: string;
  /** Requests (or operations) per second. */
  perSecond: number;
  p50Ms?: number;
  p99Ms?: number;
  /** Share of the baseline's throughput, where there is a baseline. */
  ratio?: number;
  target?: string;
  met?: boolean;
  note?: string;
}

/** The machine a result was measured on, with its load (other work competes for the CPU). */
export function describeMachine(): string {
  const load = loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');
  return `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, load average ${load} at the end`;
}

/** Writes `<dir>/<name>.json` and `<name>.md`, and prints the table. */
export async function writeReport(dir: string, name: string, title: string, rows: BenchRow[]) {
  const fmt = (n: number | undefined, digits = 0) => (n === undefined ? '' : n.toFixed(digits));
  await writeTable(dir, name, title, {
    intro: 'Load generator on the same machine: compare ratios, not absolutes.',
    columns: ['case', 'per second', 'p50 ms', 'p99 ms', 'vs baseline', 'target', 'met', 'note'],
    align: ['left', 'right', 'right', 'right', 'right', 'left', 'left', 'left'],
    rows: rows.map((r) => [
      r.name,
      fmt(r.perSecond),
      fmt(r.p50Ms, 1),
      fmt(r.p99Ms, 1),
      r.ratio === undefined ? '' : `${(r.ratio * 100).toFixed(0)} %`,
      r.target ?? '',
      r.met === undefined ? '' : r.met ? 'yes' : 'NO',
      r.note ?? '',
    ]),
    data: rows,
  });
}

export interface Table {
  /** A sentence under the title (how to read the numbers). */
  intro: string;
  columns: string[];
  align: ('left' | 'right')[];
  rows: string[][];
  /** What goes into the JSON file. */
  data: unknown;
  /** Lines after the table. */
  notes?: string[];
}

/** Any table: `<dir>/<name>.json` (the data) and `<name>.md`, printed too. */
export async function writeTable(dir: string, name: string, title: string, table: Table) {
  const machine = describeMachine();
  const at = new Date().toISOString();
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, `${name}.json`),
    JSON.stringify({ title, at, machine, rows: table.data, notes: table.notes ?? [] }, null, 2),
  );
  const cell = (text: string) => text.replaceAll('|', '\\|');
  const lines = [
    `# ${title}`,
    '',
    `${at} on ${machine}. ${table.intro}`,
    '',
    `| ${table.columns.join(' | ')} |`,
    `| ${table.align.map((a) => (a === 'right' ? '---:' : '---')).join(' | ')} |`,
    ...table.rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
    ...(table.notes?.length ? ['', ...table.notes] : []),
  ];
  const md = `${lines.join('\n')}\n`;
  await writeFile(join(dir, `${name}.md`), md);
  console.log(`\n${md}`);
}
