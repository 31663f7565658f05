export * from './message-acceptance.ts';
export * from './message-views.ts';
export * from './messages.service.ts';
export * from './message-types.ts';
export * from './sender-dids.ts';
