import adapter from '@sveltejs/adapter-node';
import { sveltekit } from '@sveltejs/kit/vite';
import { defineConfig } from 'vite';
import { fingerprint } from '../../scripts/build-inputs.mjs';
import { withEmbeddedEntry } from './embedded-adapter.ts';

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
      // build/embedded.js is called by the gateway's entry (apps/gateway/src/main.ts) with the
      // node context it booted; build/index.js serves the web app alone, booting its own.
      // The workspace packages are bundled; their runtime dependencies that load files or native
      // code next to themselves (PGlite, Prisma, argon2) are dependencies of this package, which
      // keeps them external and resolvable from build/ (docs/decisions.md).
      adapter: withEmbeddedEntry(adapter({ out: 'build' }), 'build'),
      version: { name: versionName },
      // The origin check runs for every state-changing request in hooks.server.ts
      // (lib/server/request-origin.ts), whatever the content type; SvelteKit's own covers form
      // content types only and would answer /api/* and /trpc in text instead of JSON.
      csrf: { trustedOrigins: ['*'] },
      // Pages: scripts only from this origin or with the response's nonce (SvelteKit adds it to
      // its own inline start-up script). Any script on the node's origin can sign with the
      // user's key, so nothing else may run. Style attributes (SvelteKit's route announcer,
      // app.html) are allowed; <style> elements and stylesheets only from this origin.
      // docs/security.md, "Headers".
      csp: {
        mode: 'auto',
        directives: {
          'default-src': ['self'],
          'script-src': ['self'],
          'style-src': ['self'],
          'style-src-attr': ['unsafe-inline'],
          // Remote images come through the node's media proxy (docs/security.md).
          'img-src': ['self', 'data:', 'blob:'],
          'font-src': ['self'],
          'connect-src': ['self'],
          'media-src': ['self'],
          'worker-src': ['self'],
          'manifest-src': ['self'],
          'object-src': ['none'],
          'frame-src': ['none'],
          'base-uri': ['none'],
          'form-action': ['self'],
          'frame-ancestors': ['none'],
        },
      },
    }),
  ],
});
