export * from './password.ts';
