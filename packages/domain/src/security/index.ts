export * from './admin-token.service.ts';
export * from './node-auth.service.ts';
