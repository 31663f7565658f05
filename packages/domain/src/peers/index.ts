export * from './peer-client.ts';
export * from './peer-errors.ts';
export * from './peer-profiles.ts';
export * from './peer-targets.ts';
export * from './peer-transport.ts';
export * from './ssrf-guard.ts';
export * from './visitor-fetch.ts';
