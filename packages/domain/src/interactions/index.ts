export * from './inbound-interaction.service.ts';
export { excerpt, guessMimeType } from './inbound-helpers.ts';
export * from './origin-confirmation.service.ts';
export * from './origin-confirmation-worker.ts';
export { ORIGIN_CONFIRMATION, type OriginConfirmationOptions } from './origin-holds.ts';
export { mentions } from './origin-evidence.ts';
