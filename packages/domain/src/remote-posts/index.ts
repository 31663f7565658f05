export * from './remote-post-store.ts';
export * from './post-inbox.ts';
