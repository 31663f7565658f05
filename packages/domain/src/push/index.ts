export * from './push-payload.ts';
export * from './push-rules.ts';
export * from './push-sender.ts';
export * from './push-subscriptions.service.ts';
export * from './push-worker.ts';
