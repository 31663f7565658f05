export * from './user-admin.service.ts';
