export * from './media-proxy.service.ts';
export * from './media-storage.ts';
export * from './image-processing.ts';
export * from './upload.service.ts';
