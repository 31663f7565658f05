import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as contract from './index.ts';

const sourceFiles = readdirSync(new URL('.', import.meta.url)).filter(
  (f) => f.endsWith('.ts') && !f.includes('.test'),
);

describe('package surface', () => {
  it('exports every schema of every source file through the index, under its own name', async () => {
    const missing: string[] = [];
    for (const file of sourceFiles) {
      const module = (await import(`./${file}`)) as Record<string, unknown>;
      for (const [name, value] of Object.entries(module)) {
        if (!(value instanceof z.ZodType)) continue;
        if ((contract as Record<string, unknown>)[name] !== value) missing.push(`${file}: ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('every exported schema converts to JSON Schema in both directions (for OpenAPI generators)', () => {
    for (const [name, value] of Object.entries(contract)) {
      if (!(value instanceof z.ZodType)) continue;
      for (const io of ['input', 'output'] as const) {
        expect(() => z.toJSONSchema(value, { io }), `${name} (${io})`).not.toThrow();
      }
    }
  });
});
