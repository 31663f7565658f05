export * from './profile.service.ts';
