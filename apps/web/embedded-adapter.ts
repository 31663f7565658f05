import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Adapter } from '@sveltejs/kit';

/**
 * adapter-node's output plus `embedded.js`: the entry through which the gateway's main
 * (`--with-web`, `--web-only`) hands the web app the node context it booted and its auth
 * services (docs/architecture.md, "The composition root").
 *
 * adapter-node's `handler.js` starts the SvelteKit server (the `init` hook) as it is imported,
 * so the context has to reach the hooks module first, and it has to be the very module instance
 * the server will load: its chunk in this build. That chunk keeps its export names (SvelteKit
 * imports it dynamically) but has a hashed file name, so the entry is written once the bundle
 * exists, naming it.
 */
export function withEmbeddedEntry(inner: Adapter, out: string): Adapter {
  return {
    ...inner,
    name: `${inner.name} with an embedded entry`,
    async adapt(builder) {
      await inner.adapt(builder);
      const chunks = join(out, 'server', 'chunks', 'entries');
      const hooks = readdirSync(chunks).filter((f) => /^hooks\.server\.js-[\w-]+\.js$/.test(f));
      const [chunk] = hooks;
      if (hooks.length !== 1 || !chunk) {
        throw new Error(`expected one hooks.server chunk in ${chunks}, found ${hooks.length}`);
      }
      const source = readFileSync(join(chunks, chunk), 'utf8');
      for (const name of ['useComposition', 'handleUpgrade']) {
        if (!new RegExp(`export \\{[^}]*\\b${name}\\b`).test(source)) {
          throw new Error(`${chunk} does not export ${name} (src/hooks.server.ts)`);
        }
      }
      writeFileSync(
        join(out, 'embedded.js'),
        `// Written by apps/web/embedded-adapter.ts: the web app mounted in a process that booted
// the node (apps/gateway/src/main.ts). The composition reaches the hooks before handler.js
// starts the server.
import { useComposition, handleUpgrade } from './server/chunks/entries/${chunk}';

/** WebSocket upgrades (apps' streaming): true when the web app took the socket. */
export { handleUpgrade };

/** @param {import('../src/hooks.server.ts').WebComposition} composition */
export async function createWebHandler(composition) {
  useComposition(composition);
  const { handler } = await import('./handler.js');
  return handler;
}
`,
      );
      builder.log.minor(`Wrote ${join(out, 'embedded.js')}`);
    },
  };
}
