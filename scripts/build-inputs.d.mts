// Types of build-inputs.mjs for the TypeScript that imports it (apps/web/vite.config.ts).
export declare const ROOT: string;
export declare const TARGETS: Record<
  'web' | 'gateway',
  { inputs: string[]; output: string; stamp: string }
>;
export declare function fingerprint(target: 'web' | 'gateway'): string;
