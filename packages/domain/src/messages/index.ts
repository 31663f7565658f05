export * from './message-acceptance.ts';
export * from './message-views.ts';
export * from './messages.service.ts';
export * from './sender-dids.ts';
