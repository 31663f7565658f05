export * from './remote-post-store.ts';
export * from './remote-profile-store.ts';
