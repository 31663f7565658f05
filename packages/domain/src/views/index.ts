export * from './views.ts';
export * from './visibility.ts';
export * from './addresses.ts';
export * from './blocks.ts';
