import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { baseUrlForDomain } from '@swarm/contract';
import {
  bootNode,
  createDeliveryWorker,
  createOriginConfirmationWorker,
  createLogger,
  createPushWorker,
  createRemoteContentWorker,
  createMetricsServer,
  createSwarmScheduler,
  parseConfig,
  type NodeContext,
} from '@swarm/domain';
import { authServicesOf, type AuthServices } from '@swarm/auth';
import { createGatewayApp } from './app.ts';
import { createHousekeeping } from './housekeeping.ts';
import { createHttpServer, type NodeHandler, type UpgradeHandler } from './http-server.ts';

// The node's launcher, in one of three modes:
// - `--with-web`: the embedded mode of `pnpm start`: gateway and web app in one process on one
//   port over one embedded database, with the background jobs;
// - `--web-only`: the web app alone (production's `web` service): no gateway routes, no jobs;
// - neither: the gateway alone (production's `gateway` service), with the background jobs.
// Both production services go through here so they share its JSON logs, crash lines and drain.
const webOnly = process.argv.includes('--web-only');
const withWeb = webOnly || process.argv.includes('--with-web');
const mode = webOnly ? 'web app only' : withWeb ? 'web app + gateway' : 'gateway only';

const parsed = parseConfig(process.env);
if (!parsed.ok) {
  console.error(
    `Swarm node cannot start: the configuration is invalid.\n  - ${parsed.errors.join('\n  - ')}\n` +
      'See the configuration table in README.md.',
  );
  process.exit(1);
}
const config = parsed.value;
const logger = createLogger(config.logLevel, {
  name: webOnly ? 'web' : withWeb ? 'node' : 'gateway',
  pretty: process.stdout.isTTY,
});

// A crash is one JSON line too (Node would print a multi-line stack), then exit 1 as Node does.
for (const event of ['uncaughtException', 'unhandledRejection'] as const) {
  process.on(event, (err: unknown) => {
    logger.fatal({ err }, `${event}: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}

// Process warnings (deprecations, a library's notice such as the AWS SDK's Node-version one) are
// one JSON line at warn too, not Node's own multi-line text on stderr.
process.removeAllListeners('warning');
process.on('warning', (warning) => {
  logger.warn({ warning: warning.name }, warning.message.replace(/\s*\n\s*/g, ' '));
});

/** What runs beside the HTTP server: announce/gossip, outbox retries, remote reads, housekeeping. */
interface BackgroundJob {
  start(): void;
  stop(): Promise<void>;
}

/**
 * The built web app, handed this process's node context and auth services through its
 * `embedded.js` entry (apps/web/embedded-adapter.ts): one composition root, here.
 */
async function loadWebHandler(composition: {
  node: NodeContext;
  auth: AuthServices;
}): Promise<{ handler: NodeHandler; upgrade: UpgradeHandler }> {
  const entryPath = fileURLToPath(new URL('../../web/build/embedded.js', import.meta.url));
  if (!existsSync(entryPath)) {
    throw new Error(
      `The web app is not built (${entryPath} is missing): run \`pnpm build\` first.`,
    );
  }
  // adapter-node needs the public origin for its CSRF check on forms.
  process.env.ORIGIN ??= baseUrlForDomain(config.domain);
  // adapter-node's body cap (default 512 KB) is raised to the upload limit, so a photo can be
  // uploaded; every other path keeps 512 KB (the web app's edge hook, lib/server/edge.ts).
  process.env.BODY_SIZE_LIMIT ??= String(config.uploadMaxBytes);
  const entry = (await import(entryPath)) as {
    createWebHandler(given: typeof composition): Promise<NodeHandler>;
    handleUpgrade: UpgradeHandler;
  };
  return { handler: await entry.createWebHandler(composition), upgrade: entry.handleUpgrade };
}

async function main() {
  // pnpm runs package scripts in the package folder; paths in the environment are relative to
  // where the operator typed the command (INIT_CWD), like `pnpm db:migrate` takes them.
  // The web app alone leaves the schema to the gateway and the migrate job.
  const node = await bootNode(config, {
    logger,
    baseDir: process.env.INIT_CWD ?? process.cwd(),
    migrate: !webOnly,
  });
  // The composition root: everything with IO is built once, here and in the node context, and
  // handed to the gateway, the web app and the background jobs.
  const auth = authServicesOf(node);
  const web = withWeb ? await loadWebHandler({ node, auth }) : undefined;
  const jobs: BackgroundJob[] = webOnly
    ? []
    : [
        // Announce on start, then gossip rounds and re-probes in the background (docs/protocol.md,
        // Gossip).
        createSwarmScheduler({ node }),
        // Retries of the durable outbox (docs/protocol.md, "Delivery and the outbox"); safe with
        // several gateway replicas.
        createDeliveryWorker({ node }),
        // Held origin-profile follows, mentions and replies, confirmed or dropped (docs/protocol.md).
        createOriginConfirmationWorker({ node }),
        // Web Push: notifications pushed to people's apps and browsers (docs/clients.md).
        createPushWorker({ node }),
        // Stored remote content: followed people polled, peers' timelines crawled on the
        // operator's budget, old copies swept (docs/architecture.md "Stored remote content").
        createRemoteContentWorker({ node }),
        // Hourly clean-up of expired sessions.
        createHousekeeping({ node, sessions: auth.sessions }),
      ];
  const server = createHttpServer({
    fetch: webOnly ? undefined : createGatewayApp(node, { auth }).fetch,
    web: web?.handler,
    // Apps' streaming over WebSocket (docs/architecture.md "The client API").
    upgrade: web?.upgrade,
  });

  server.on('error', (err: NodeJS.ErrnoException) => {
    logger.fatal(
      err.code === 'EADDRINUSE'
        ? `Port ${config.port} is already in use: stop the other process or set PORT.`
        : `HTTP server error: ${err.message}`,
    );
    void node.close().finally(() => process.exit(1));
  });
  server.listen(config.port, config.host, () => {
    logger.info(
      `Swarm node ${config.domain} is up on http://localhost:${config.port} (${mode}, ${node.db.kind} database)`,
    );
    for (const job of jobs) job.start();
  });
  // Optional private port for scrapers without a token (METRICS_PORT, METRICS_HOST).
  const metricsServer =
    config.metricsPort === undefined ? undefined : createMetricsServer(node.metrics);
  metricsServer?.on('error', (err: Error) => {
    logger.fatal(`Metrics port ${config.metricsPort} on ${config.metricsHost}: ${err.message}`);
    void node.close().finally(() => process.exit(1));
  });
  metricsServer?.listen(config.metricsPort, config.metricsHost, () => {
    logger.info(`Metrics on http://${config.metricsHost}:${config.metricsPort}/metrics`);
  });

  // SIGTERM (docker stop, compose, systemd) or SIGINT (^C): readiness turns false, the server
  // stops accepting and answers what it has (up to SWARM_DRAIN_TIMEOUT_MS), the background jobs
  // finish the step they are in, the database closes, exit 0. A second signal stops waiting.
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) {
      logger.warn(`${signal} received again: closing the remaining connections now`);
      server.closeAllConnections();
      return;
    }
    closing = true;
    node.lifecycle.beginShutdown();
    const deadline = config.drainTimeoutMs;
    logger.info(`${signal} received: not ready any more, draining requests (up to ${deadline} ms)`);
    const stopped = Promise.all(jobs.map((job) => job.stop()));
    metricsServer?.close();
    try {
      const drained = await server.drain(deadline);
      logger.info(
        drained,
        drained.timedOut
          ? `drain timed out after ${drained.ms} ms: ${drained.finished} requests answered, ${drained.cut} cut`
          : `drained in ${drained.ms} ms: ${drained.finished} requests answered, none cut`,
      );
      const jobsDone = await Promise.race([
        stopped.then(() => true),
        new Promise<false>((r) => setTimeout(r, Math.max(0, deadline - drained.ms), false).unref()),
      ]);
      if (!jobsDone) logger.warn('background jobs still running at the deadline: closing anyway');
      await node.close();
      logger.info('database closed, exiting');
      process.exit(0);
    } catch (err) {
      logger.error({ err }, 'error while shutting down');
      process.exit(1);
    }
  };
  const onSignal = (signal: NodeJS.Signals) => void shutdown(signal);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

main().catch((err: unknown) => {
  logger.fatal(
    { err },
    `Swarm node failed to start: ${err instanceof Error ? err.message : String(err)}`,
  );
  process.exit(1);
});
