export * from './delivery-policy.ts';
export * from './delivery.service.ts';
export * from './delivery-worker.ts';
