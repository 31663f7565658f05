import type { z } from 'zod';
import { parseWith } from '@swarm/contract';

/** The Standard Schema interface (standardschema.dev), as tRPC reads it. */
interface StandardInput<In, Out> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (
      value: unknown,
    ) =>
      | { readonly value: Out; readonly issues?: undefined }
      | { readonly issues: { message: string; path?: PropertyKey[] }[] };
    readonly types?: { readonly input: In; readonly output: Out };
  };
}

/**
 * A zod schema as a tRPC input (Standard Schema) whose failure is one readable sentence
 * ("priority: must be a whole number from 0 to 1000000"), shown as-is next to admin forms, not
 * zod's JSON dump of issues. Unlike a plain function parser it keeps the schema's input type
 * (optional fields and defaults stay optional for callers).
 */
export function humaneInput<S extends z.ZodType>(
  schema: S,
): StandardInput<z.input<S>, z.output<S>> {
  return {
    '~standard': {
      version: 1,
      vendor: 'swarm',
      validate: (value: unknown) => {
        const parsed = parseWith(schema, value);
        if (parsed.ok) return { value: parsed.value };
        // The first issue's path names the input member (a form shows the sentence next to it).
        const path = schema.safeParse(value).error?.issues[0]?.path ?? [];
        return { issues: [{ message: parsed.reason, path }] };
      },
    },
  };
}
