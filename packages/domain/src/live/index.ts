export * from './live-hub.ts';
