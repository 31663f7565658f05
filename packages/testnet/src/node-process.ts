import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const gatewayDir = fileURLToPath(new URL('..', import.meta.url));

/** A free TCP port on loopback, from the OS. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

export interface NodeProcess {
  child: ChildProcess;
  output: () => string;
  stop: () => Promise<number | null>;
}

/**
 * Starts a node the way an operator does (the gateway entry point under tsx) and resolves once
 * it logs that it is up, or rejects with its output if it exits first.
 */
export async function startNodeProcess(
  env: Record<string, string>,
  args: string[] = ['--with-web'],
): Promise<NodeProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
    cwd: gatewayDir,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = once(child, 'exit');
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes(' is up on ')) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then(([code]) => reject(new Error(`node exited with ${String(code)}:\n${out}`)));
  });
  return {
    child,
    output: () => out,
    stop: async () => {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      return code;
    },
  };
}

/** Runs the entry point to completion (for configurations that must be refused). */
export async function runNodeProcessToExit(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: gatewayDir,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, output: out };
}
