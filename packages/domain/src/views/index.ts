export * from './views.ts';
export * from './visibility.ts';
