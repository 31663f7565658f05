export * from './list-types.ts';
export * from './list.service.ts';
