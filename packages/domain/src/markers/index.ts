export * from './markers.service.ts';
