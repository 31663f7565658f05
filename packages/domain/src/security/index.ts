export * from './admin-token.service.ts';
export * from './node-auth.service.ts';
export { DID_RECHECK_MS } from './user-dids.ts';
