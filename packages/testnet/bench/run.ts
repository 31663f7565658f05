import { fileURLToPath } from 'node:url';
import { benchReads } from './reads.bench.ts';
import { writeReport } from './report.ts';

// `pnpm bench`: every benchmark, results as JSON + markdown under bench/results/ at the repo
// root. Speed targets live here, never in timed tests.
const resultsDir = fileURLToPath(new URL('../../../bench/results', import.meta.url));

console.log('reads: 5 s per case, 50 connections…');
await writeReport(resultsDir, 'reads', 'Gateway reads vs a bare Hono route', await benchReads());
