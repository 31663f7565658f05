export * from './bookmark-types.ts';
export * from './bookmark.service.ts';
