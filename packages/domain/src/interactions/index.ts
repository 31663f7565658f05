export * from './inbound-interaction.service.ts';
export { excerpt, guessMimeType } from './inbound-helpers.ts';
