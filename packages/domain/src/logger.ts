import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { LogLevel } from './config.ts';

export type { Logger };

/**
 * JSON lines for machines (production, CI); colourful single lines when a person watches a
 * terminal. pino-pretty runs in-process as a stream, not as a worker transport, so it also
 * works inside the bundled SvelteKit server.
 */
export function createLogger(
  level: LogLevel,
  opts: { pretty?: boolean; name?: string } = {},
): Logger {
  const usePretty = opts.pretty ?? false;
  const base = { level, name: opts.name };
  if (!usePretty) return pino(base);
  return pino(
    base,
    pretty({ colorize: true, translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname' }),
  );
}
