// `pnpm typecheck`: the TypeScript packages as one program (tsconfig.check.json) beside the web
// app's svelte-check. Each package's own `tsc -p .` also checks the sources of every workspace
// package it imports, so eight of them in parallel checked the domain five times over; one
// program checks each file once (docs/testing.md "CI time"). Plain JavaScript, run by `node`.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const run = (command, args) =>
  new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: 'inherit' });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    child.on('error', () => resolve(1));
  });

const codes = await Promise.all([
  run('pnpm', ['exec', 'tsc', '-p', 'tsconfig.check.json']),
  run('pnpm', ['--filter', '@swarm/web', 'typecheck']),
]);
process.exit(codes.some((code) => code !== 0) ? 1 : 0);
