// ESLint 9 flat config for the whole workspace: TypeScript everywhere, Svelte in apps/web.
// Formatting is Prettier's job (eslint-config-prettier turns the conflicting rules off).
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import prettier from 'eslint-config-prettier';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';
import ts from 'typescript-eslint';
import { boundaries } from './eslint.boundaries.js';

export default defineConfig(
  {
    ignores: [
      '**/node_modules/',
      '**/build/',
      '**/dist/',
      '**/.svelte-kit/',
      '**/coverage/',
      '**/test-results/',
      'packages/db/src/generated/',
      'data/',
      'bench/results/',
    ],
  },
  js.configs.recommended,
  ts.configs.recommended,
  svelte.configs.recommended,
  prettier,
  svelte.configs.prettier,
  {
    languageOptions: {
      ecmaVersion: 'latest',
      sourceType: 'module',
      // Server code (Node) and browser code (SvelteKit pages) live side by side.
      globals: { ...globals.node, ...globals.browser },
      parserOptions: {
        extraFileExtensions: ['.svelte'],
      },
    },
    rules: {
      // A node is always served at the root of its domain (the protocol fixes /api/swarm/* and
      // /.well-known/node-swarm there), so SvelteKit has no paths.base and resolve() on every
      // href would add nothing.
      'svelte/no-navigation-without-resolve': 'off',
      // CLIs and entry points print on purpose; the services log through pino.
      'no-console': 'off',
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { prefer: 'type-imports', fixStyle: 'separate-type-imports' },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
    },
  },
  {
    files: ['**/*.svelte', '**/*.svelte.ts', '**/*.svelte.js'],
    languageOptions: {
      parserOptions: {
        // <script lang="ts"> in components, and TypeScript in rune modules.
        parser: ts.parser,
      },
    },
  },
  // Who may import whom (docs/architecture.md, Layers): eslint.boundaries.js.
  ...boundaries,
  {
    // The contract also runs in the browser (keys, message crypto) and does no IO: no Node
    // module, no Node global, no network or storage.
    files: ['packages/contract/src/**/*.ts'],
    ignores: ['packages/contract/src/**/*.test.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'ImportDeclaration[source.value=/^node:/], ImportExpression[source.value=/^node:/]',
          message: 'contract runs in the browser too: no Node modules.',
        },
      ],
      'no-restricted-globals': [
        'error',
        ...['process', 'Buffer', 'require', 'fetch', 'localStorage', 'sessionStorage'].map(
          (name) => ({ name, message: 'contract runs in the browser too and does no IO.' }),
        ),
      ],
    },
  },
);
