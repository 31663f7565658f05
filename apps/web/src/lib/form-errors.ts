import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';

/** Field name → message; `form` for an error that belongs to no single field. */
export type FormErrors = Partial<Record<string, string>>;

/**
 * Turns a procedure's TRPCError into the status and per-field messages of a form action, so the
 * message appears next to the field it is about (the account service starts its sentences with
 * the field: "Handle: …", "Password needs …", "Avatar URL must …"). `fields` is tried in order;
 * no match puts the message on the form. Anything but a TRPCError is a bug and is rethrown.
 */
export function formErrorsFrom(
  error: unknown,
  fields: ReadonlyArray<readonly [field: string, pattern: RegExp]>,
  overrides: Partial<Record<TRPCError['code'], string>> = {},
): { status: number; errors: FormErrors } {
  if (!(error instanceof TRPCError)) throw error;
  const field = overrides[error.code] ?? fields.find(([, re]) => re.test(error.message))?.[0];
  return {
    status: getHTTPStatusCodeFromError(error),
    errors: { [field ?? 'form']: error.message },
  };
}
