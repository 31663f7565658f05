export * from './database-errors.ts';
export * from './failure-log.ts';
export * from './health.ts';
export * from './metrics.ts';
export * from './request-context.ts';
export * from './metrics-server.ts';
export * from './audit.service.ts';
