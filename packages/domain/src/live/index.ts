export * from './live-hub.ts';
export * from './stream-feed.ts';
