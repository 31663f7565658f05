import { refusalOf } from '@swarm/api';
import { ERROR_STATUS } from '@swarm/contract';

/** Field name → message; `form` for an error that belongs to no single field. */
export type FormErrors = Partial<Record<string, string>>;

/**
 * Turns a procedure's error into the status and per-field messages of a form action: the
 * refusal names the input it is about (`field`, set by the service or by input validation), and
 * when the form shows that field the message goes next to it; otherwise on the form. The status
 * is the code's (`ERROR_STATUS`). Anything but a TRPCError is a bug and is rethrown.
 */
export function formErrorsFrom(
  error: unknown,
  fields: readonly string[],
): { status: number; errors: FormErrors } {
  const refusal = refusalOf(error);
  if (!refusal) throw error;
  const field =
    refusal.field !== undefined && fields.includes(refusal.field) ? refusal.field : 'form';
  return { status: ERROR_STATUS[refusal.code], errors: { [field]: refusal.message } };
}
