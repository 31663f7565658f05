export * from './remote-post-store.ts';
