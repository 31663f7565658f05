export * from './media-proxy.service.ts';
export * from './media-storage.ts';
export * from './image-processing.ts';
export * from './upload.service.ts';
export * from './upload-view.ts';
export { checkUploadDescription, type UploadDescription } from './describe-upload.ts';
