import type { Handle, ServerInit } from '@sveltejs/kit';
import { createCaller } from '@swarm/api';
import {
  bootNode,
  createLogger,
  parseConfig,
  sharedNodeContext,
  type NodeContext,
} from '@swarm/domain';

let node: NodeContext | undefined;

// Embedded mode (`pnpm start`): the gateway's entry booted the node in this process and shares
// it, since an embedded database opens in one place only. Alone (production), the web app
// boots its own context from the same environment variables; the schema is the gateway's and
// the migrate job's business (this bundle carries no migrations folder).
export const init: ServerInit = async () => {
  node = sharedNodeContext();
  if (node) return;
  const parsed = parseConfig(process.env);
  if (!parsed.ok) {
    throw new Error(`Invalid configuration:\n  ${parsed.errors.join('\n  ')}`);
  }
  const logger = createLogger(parsed.value.logLevel, { name: 'web', pretty: process.stdout.isTTY });
  node = await bootNode(parsed.value, { logger, migrate: false });
};

export const handle: Handle = async ({ event, resolve }) => {
  if (!node) throw new Error('node context is not ready');
  event.locals.node = node;
  event.locals.api = createCaller({ node });
  return resolve(event);
};
