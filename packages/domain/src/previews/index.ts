export * from './link-metadata.ts';
export * from './link-preview.service.ts';
