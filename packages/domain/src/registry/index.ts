export * from './change-stamp.ts';
export * from './gossip.service.ts';
export * from './registry.service.ts';
export * from './swarm-scheduler.ts';
export * from './trust.ts';
export * from './swarm-services.ts';
export * from './registry-admin.service.ts';
