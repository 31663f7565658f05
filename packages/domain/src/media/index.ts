export * from './media-proxy.service.ts';
