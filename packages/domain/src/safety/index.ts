export * from './safety.service.ts';
export * from './blocks.ts';
