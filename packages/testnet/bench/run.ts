import { fileURLToPath } from 'node:url';
import { benchClientApi } from './client-api.bench.ts';
import { benchGossip } from './gossip-report.ts';
import { benchIngest } from './ingest.bench.ts';
import { benchLiveStreams } from './live-streams.bench.ts';
import { benchPages } from './pages.bench.ts';
import { benchPostIngest } from './post-ingest.bench.ts';
import { benchReads } from './reads.bench.ts';
import { benchSearch } from './search.bench.ts';
import { benchStartup } from './startup.bench.ts';
import { benchSwarmFeed } from './swarm-feed.bench.ts';
import { benchSwarmSim } from './swarm-sim.bench.ts';
import { benchUploads } from './uploads.bench.ts';
import { writeReport } from './report.ts';

// `pnpm bench`: every benchmark, results as JSON + markdown under bench/results/ at the repo
// root. Speed targets live here, never in timed tests. `pnpm bench ingest gossip` runs only
// the named ones (reads, pages, swarm-feed, ingest, post-ingest, swarm-sim, gossip, startup, live, search,
// uploads, swarm-sim, client-api).
const resultsDir = fileURLToPath(new URL('../../../bench/results', import.meta.url));
const only = process.argv.slice(2);
const wanted = (name: string) => only.length === 0 || only.includes(name);
const log = (line: string) => console.log(line);

if (wanted('reads')) {
  console.log('reads: 5 s per case, 50 connections…');
  await writeReport(resultsDir, 'reads', 'Gateway reads vs a bare Hono route', await benchReads());
}

if (wanted('pages')) {
  console.log('pages: /public and a profile page of `pnpm start`, 10 connections…');
  await writeReport(
    resultsDir,
    'pages',
    'Server-rendered pages (embedded node, PGlite, demo content)',
    await benchPages(log),
  );
}

if (wanted('client-api')) {
  console.log('client-api: the home timeline through the app API vs the tRPC read, one node…');
  await writeReport(
    resultsDir,
    'client-api',
    'Home timeline through the client API (ratio: vs the tRPC read, same run)',
    await benchClientApi(log),
  );
}

if (wanted('swarm-feed')) {
  console.log('swarm feed and home: 100, 1,000 and 10,000 known peers, stored posts only…');
  await writeReport(
    resultsDir,
    'swarm-feed',
    'Swarm feed and home from stored posts (ratio: vs the local timeline, same run)',
    await benchSwarmFeed(log),
  );
}

if (wanted('ingest')) {
  console.log('ingest: signed likes through the front door, ~10 s per case…');
  await writeReport(resultsDir, 'ingest', 'Signed like ingest', await benchIngest(log));
}

if (wanted('post-ingest')) {
  console.log('post ingest: signed pushed posts through the front door, ~10 s per case…');
  await writeReport(
    resultsDir,
    'post-ingest',
    'Pushed post ingest (POST /api/swarm/inbox)',
    await benchPostIngest(log),
  );
}

if (wanted('gossip')) {
  console.log('gossip: N = 50 and 200 in-process nodes, 10 % loss, 10 % dead (minutes)…');
  await benchGossip(resultsDir, [50, 200], log);
}

if (wanted('search')) {
  console.log('search: 100,000 posts on PGlite, then on Postgres (minutes to write)…');
  await writeReport(
    resultsDir,
    'search',
    'Post search over 100,000 posts (p99 vs the newest-20 read)',
    await benchSearch(log),
  );
}

if (wanted('startup')) {
  console.log('startup: `pnpm start` to the first page, and idle memory, 3 rounds…');
  await benchStartup(resultsDir, log);
}

if (wanted('live')) {
  console.log('live: 1,000 open event streams in one process, memory against its own baseline…');
  await benchLiveStreams(resultsDir, log);
}

if (wanted('swarm-sim')) {
  console.log('swarm-sim: 10,000 modelled nodes, 1,000,000 people, real policies (minutes)…');
  await benchSwarmSim(resultsDir, log);
}

if (wanted('uploads')) {
  console.log('uploads: a 4000 × 3000 JPEG processed as an upload, against a plain decode…');
  await writeReport(
    resultsDir,
    'uploads',
    'Photo upload processing (4000 × 3000 JPEG)',
    await benchUploads(log),
  );
}
