import { z } from 'zod';
import type { Result } from './result.ts';
import { err, ok } from './result.ts';

/**
 * Building blocks shared by every wire schema. Reading rule (docs/protocol.md): tolerant in what we
 * accept — missing or `null` optional text becomes `""`, a missing count `0`, a missing flag
 * `false` — but a present member of the wrong type always fails. The parsed output therefore
 * always has the full spec shape, which is also the shape we send.
 */

/** One-line summary of zod issues, for `reason`s and logs (full issues go in error `details`). */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) =>
      issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message,
    )
    .join('; ');
}

/** `schema.safeParse` as a Result, so callers handle peers' garbage without try/catch. */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown): Result<z.output<S>> {
  const parsed = schema.safeParse(input);
  return parsed.success ? ok(parsed.data) : err(describeZodError(parsed.error));
}

/**
 * A string schema driven by a Result parser: the parser's normalised value replaces the input
 * (e.g. a lower-cased domain) and its `reason` becomes the zod issue message. No transform, so
 * the schema still converts to JSON Schema in both directions.
 */
export function stringFromParser(parse: (input: string) => Result<string>): z.ZodString {
  return z
    .string()
    .overwrite((input) => {
      const parsed = parse(input);
      return parsed.ok ? parsed.value : input;
    })
    .superRefine((value, ctx) => {
      const parsed = parse(value);
      if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.reason });
    });
}

/** Absolute http(s) URL: the only kind a node can fetch or a browser can safely link to. */
export function isHttpUrl(value: string): boolean {
  if (value.length > 2048) return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

function normaliseTimestamp(value: string): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toISOString();
}

/**
 * ISO 8601 timestamp with `Z` or an offset, with or without fractional seconds; normalised to
 * UTC with milliseconds (`2026-11-22T14:00:00.000Z`), the form we emit.
 */
export const timestampSchema = z.iso.datetime({ offset: true }).overwrite(normaliseTimestamp);

/** The emitted timestamp form: ISO 8601 UTC with milliseconds. */
export function formatTimestamp(date: Date): string {
  return date.toISOString();
}

export const countSchema = z.int().nonnegative();

/** Counter that peers may omit: defaults to 0. */
export function count() {
  return countSchema.default(0);
}

/** Boolean that peers may omit: defaults to false. */
export function flag() {
  return z.boolean().default(false);
}

/** Free text that peers may omit or send as null: becomes "". */
export function optionalText() {
  return z
    .string()
    .nullish()
    .transform((value) => value ?? '')
    .pipe(z.string());
}

/**
 * A URL field that may be empty (avatar, header, website, preview image). Missing, null, "" and
 * anything that is not an absolute http(s) URL become "": a relative or `javascript:` URL from a
 * peer can be neither fetched nor safely rendered, and is not worth rejecting a whole answer for.
 */
export function optionalUrl() {
  return z
    .string()
    .nullish()
    .transform((value) => (value && isHttpUrl(value) ? value : ''))
    .pipe(z.string());
}

/** `linkPreviewUrl`: an http(s) URL or null (missing, "" and unusable URLs become null). */
export function nullableUrl() {
  return z
    .string()
    .nullish()
    .transform((value) => (value && isHttpUrl(value) ? value : null))
    .pipe(z.string().nullable());
}

/** A URL that must be usable (media items, reply media): rejected otherwise. */
export const httpUrlSchema = z
  .string()
  .refine(isHttpUrl, { message: 'must be an absolute http(s) URL' });

/**
 * UUID as the spec uses it for ids of posts on the receiving node. `z.guid()` (any 8-4-4-4-12
 * hex) rather than RFC-variant-strict `z.uuid()`, to accept ids from other implementations.
 */
export const uuidSchema = z.guid();

/** `interactionId`: opaque deduplication key chosen by the sender. */
export const interactionIdSchema = z.string().min(1).max(200);

/** A user signature as carried in bodies; its validity is checked by verification, not here. */
export const signatureSchema = z.string().min(1).max(1024);

/**
 * A decentralized identifier per W3C DID syntax (`did:<method>:<id>`). Any method is accepted
 * on the wire; ours are `did:key` (see `parseDidKey`).
 */
export const didSchema = z
  .string()
  .max(2048)
  .regex(/^did:[a-z0-9]+:[A-Za-z0-9._:%-]*[A-Za-z0-9._%-]$/, {
    message: 'must be a DID (did:<method>:<id>)',
  });

/** An extra member peers may omit, send as null or as "": all read as absent. */
export function optionalMember<T extends z.ZodType<string, string>>(schema: T) {
  return z
    .string()
    .nullish()
    .transform((value) => (value ? value : undefined))
    .pipe(schema.optional());
}
