export * from './password.ts';
export * from './types.ts';
