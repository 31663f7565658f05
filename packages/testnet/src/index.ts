export * from './manual-clock.ts';
export * from './test-node.ts';
