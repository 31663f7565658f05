export * from './inbound-interaction.service.ts';
export { excerpt, guessMimeType } from './inbound-helpers.ts';
export * from './origin-confirmation.service.ts';
export * from './origin-confirmation-worker.ts';
export * from './inbound-types.ts';
export { mentions } from './origin-evidence.ts';
