export * from './feed.service.ts';
export * from './home-audience.ts';
export * from './peer-reads.ts';
export * from './post-views.ts';
export * from './read-errors.ts';
export * from './row-paging.ts';
export * from './seen-posts.ts';
export * from './thread.service.ts';
