export * from './list-types.ts';
export * from './list.service.ts';
export * from './list-audience.ts';
export type { ListedAuthor } from './list-holding.ts';
