import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as contract from './index.ts';

const sourceFiles = readdirSync(new URL('.', import.meta.url)).filter(
  (f) => f.endsWith('.ts') && !f.includes('.test'),
);

describe('package surface', () => {
  it('exports every schema through the index', () => {
    const schemas = Object.entries(contract).filter(([, value]) => value instanceof z.ZodType);
    expect(schemas.length).toBeGreaterThan(40);
  });

  it('every exported schema converts to JSON Schema in both directions (for OpenAPI generators)', () => {
    for (const [name, value] of Object.entries(contract)) {
      if (!(value instanceof z.ZodType)) continue;
      for (const io of ['input', 'output'] as const) {
        expect(() => z.toJSONSchema(value, { io }), `${name} (${io})`).not.toThrow();
      }
    }
  });

  it('has no IO and nothing Node-only in src (it also runs in the browser)', () => {
    for (const file of sourceFiles) {
      const text = readFileSync(new URL(file, import.meta.url), 'utf8');
      expect(text, file).not.toMatch(
        /from ['"]node:|require\(|process\.|\bBuffer\b|\bfetch\(|localStorage/,
      );
    }
  });
});
