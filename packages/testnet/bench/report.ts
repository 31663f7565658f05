import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
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

/** Writes `<dir>/<name>.json` and `<name>.md`, and prints the table. */
export async function writeReport(dir: string, name: string, title: string, rows: BenchRow[]) {
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
  const at = new Date().toISOString();
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, `${name}.json`), JSON.stringify({ title, at, machine, rows }, null, 2));
  const fmt = (n: number | undefined, digits = 0) => (n === undefined ? '' : n.toFixed(digits));
  const lines = [
    `# ${title}`,
    '',
    `${at} on ${machine}. Load generator on the same machine: compare ratios, not absolutes.`,
    '',
    '| case | per second | p50 ms | p99 ms | vs baseline | target | met |',
    '| --- | ---: | ---: | ---: | ---: | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${fmt(r.perSecond)} | ${fmt(r.p50Ms, 1)} | ${fmt(r.p99Ms, 1)} | ${r.ratio === undefined ? '' : `${(r.ratio * 100).toFixed(0)} %`} | ${r.target ?? ''} | ${r.met === undefined ? '' : r.met ? 'yes' : 'NO'} |`,
    ),
  ];
  const md = `${lines.join('\n')}\n`;
  await writeFile(join(dir, `${name}.md`), md);
  console.log(`\n${md}`);
}
