export * from './profile.service.ts';
export * from './follow-lists.ts';
