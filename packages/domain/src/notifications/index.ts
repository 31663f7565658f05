export * from './notification.service.ts';
