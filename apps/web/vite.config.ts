import adapter from '@sveltejs/adapter-node';
import { sveltekit } from '@sveltejs/kit/vite';
import { defineConfig } from 'vite';

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
    }),
  ],
});
