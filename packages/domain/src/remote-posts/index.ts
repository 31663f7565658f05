export * from './remote-post-store.ts';
export * from './remote-profile-store.ts';
export * from './post-inbox.ts';
