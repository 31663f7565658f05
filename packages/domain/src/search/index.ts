export * from './search.service.ts';
