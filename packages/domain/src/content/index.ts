export * from './content.service.ts';
export * from './content-mappers.ts';
export * from './demo-content.service.ts';
