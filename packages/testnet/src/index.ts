export * from './manual-clock.ts';
export * from './test-node.ts';
export * from './test-network.ts';
export * from './api-caller.ts';
export * from './signed-likes.ts';
export * from './origin-peer.ts';
