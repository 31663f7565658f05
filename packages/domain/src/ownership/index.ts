export * from './account-ownership.service.ts';
export * from './inbound-ownership.service.ts';
export * from './holders.ts';
export * from './account-archive.ts';
export * from './ownership-types.ts';
