import { describe, expect, it } from 'vitest';
import { createLogger } from '../logger.ts';
import { isDatabaseUnavailableError } from './database-errors.ts';
import { createFailureLog, DATABASE_UNAVAILABLE } from './failure-log.ts';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('info');
  for (const level of ['error', 'info'] as const) {
    logger[level] = ((obj: Record<string, unknown>, msg: string) => {
      lines.push({ ...obj, level, msg });
    }) as never;
  }
  return { logger, lines };
}

describe('failure log', () => {
  it('logs a kind once per interval, counts the rest, and says when it recovered', () => {
    const { logger, lines } = capture();
    let now = 0;
    const failures = createFailureLog({ logger, intervalMs: 60_000, now: () => now });
    const error = new Error(
      "\nInvalid `prisma.user.findFirst()` invocation:\n\nCan't reach database server",
    );
    for (let i = 0; i < 50; i++) failures.report(DATABASE_UNAVAILABLE, error);
    failures.report('delivery batch failed', new Error('boom'));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      level: 'error',
      failure: DATABASE_UNAVAILABLE,
      suppressed: 0,
      msg: "database unavailable: Can't reach database server",
    });
    now = 59_999;
    failures.report(DATABASE_UNAVAILABLE, error);
    expect(lines).toHaveLength(2);
    now = 60_000;
    failures.report(DATABASE_UNAVAILABLE, error);
    expect(lines[2]).toMatchObject({ suppressed: 50, failuresSoFar: 52 });
    expect(failures.failing(DATABASE_UNAVAILABLE)).toBe(true);
    failures.recovered(DATABASE_UNAVAILABLE);
    failures.recovered(DATABASE_UNAVAILABLE);
    expect(lines.slice(3)).toEqual([
      expect.objectContaining({ level: 'info', failure: DATABASE_UNAVAILABLE, failures: 52 }),
    ]);
    expect(failures.failing(DATABASE_UNAVAILABLE)).toBe(false);
  });
});

describe('isDatabaseUnavailableError', () => {
  it.each([
    ['Prisma P1001', Object.assign(new Error('x'), { code: 'P1001' })],
    ['Prisma P2024 (pool timeout)', Object.assign(new Error('x'), { code: 'P2024' })],
    [
      'a driver adapter DatabaseNotReachable',
      Object.assign(new Error('x'), {
        code: 'P2010',
        meta: { driverAdapterError: { cause: { kind: 'DatabaseNotReachable' } } },
      }),
    ],
    [
      'ECONNREFUSED in a cause',
      new Error('x', { cause: Object.assign(new Error('y'), { code: 'ECONNREFUSED' }) }),
    ],
    ['SQLSTATE 57P01 (admin shutdown)', Object.assign(new Error('x'), { code: '57P01' })],
    ['SQLSTATE 08006 (connection failure)', Object.assign(new Error('x'), { code: '08006' })],
  ])('recognises %s', (_name, error) => {
    expect(isDatabaseUnavailableError(error)).toBe(true);
  });

  it.each([
    ['a unique violation', Object.assign(new Error('x'), { code: 'P2002' })],
    ['SQLSTATE 23505', Object.assign(new Error('x'), { code: '23505' })],
    ['a plain bug', new TypeError('cannot read properties of undefined')],
    ['a string', 'ECONNREFUSED'],
  ])('does not take %s for an outage', (_name, error) => {
    expect(isDatabaseUnavailableError(error)).toBe(false);
  });

  it('survives cycles in causes', () => {
    const a = new Error('a') as Error & { cause?: unknown };
    a.cause = a;
    expect(isDatabaseUnavailableError(a)).toBe(false);
  });
});
