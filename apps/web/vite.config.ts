import adapter from '@sveltejs/adapter-node';
import { sveltekit } from '@sveltejs/kit/vite';
import { defineConfig } from 'vite';
import { fingerprint } from '../../scripts/build-inputs.mjs';

// The version name is the fingerprint of the sources, not SvelteKit's default timestamp: the
// same sources then build to the same files, so rebuilding a checkout does not pull chunks from
// under a process serving it (docs/deployment.md). scripts/build.mjs passes the value it has
// already computed.
const versionName = (process.env.SWARM_WEB_BUILD_ID || fingerprint('web')).slice(0, 16);

export default defineConfig({
  plugins: [
    sveltekit({
      compilerOptions: {
        // Runes everywhere in our own code; libraries keep their own mode.
        runes: ({ filename }) =>
          filename.split(/[/\\]/).includes('node_modules') ? undefined : true,
      },
      // build/handler.js is mounted by the embedded entry (apps/gateway/src/main.ts);
      // build/index.js is the standalone production server.
      // The workspace packages are bundled; their runtime dependencies that load files or native
      // code next to themselves (PGlite, Prisma, argon2) are dependencies of this package, which
      // keeps them external and resolvable from build/ (docs/decisions.md).
      adapter: adapter({ out: 'build' }),
      version: { name: versionName },
    }),
  ],
});
