import { describe, expect, it } from 'vitest';
import { TRPCError } from '@trpc/server';
import { toTrpcError } from '@swarm/api';
import { refusal } from '@swarm/domain';
import { formErrorsFrom } from '../src/lib/form-errors.ts';

// Forms put a refusal's sentence next to the input its `field` names, whatever the sentence
// says (no matching on English text); a field the form does not show, or none, goes on the form.

const PROFILE_FIELDS = ['displayName', 'bio', 'avatarUrl', 'headerUrl', 'website'] as const;

describe('formErrorsFrom', () => {
  it('shows the error on the field the refusal names, with the code’s status', () => {
    // The sentence mentions another field on purpose: only `field` decides.
    const error = toTrpcError(
      refusal('INVALID_REQUEST', 'Website and avatar are fine; this is about the bio.', {
        field: 'bio',
      }),
    );
    expect(formErrorsFrom(error, PROFILE_FIELDS)).toEqual({
      status: 400,
      errors: { bio: 'Website and avatar are fine; this is about the bio.' },
    });
  });

  it('keeps a conflict’s own status and field (HANDLE_TAKEN → 409 on handle)', () => {
    const error = toTrpcError(
      refusal('HANDLE_TAKEN', 'The handle "alice" is taken.', { field: 'handle' }),
    );
    expect(formErrorsFrom(error, ['handle', 'displayName', 'password'])).toEqual({
      status: 409,
      errors: { handle: 'The handle "alice" is taken.' },
    });
  });

  it('puts refusals about no field, or a field the form does not show, on the form', () => {
    const throttled = toTrpcError(
      refusal('RATE_LIMITED', 'Too many login attempts; try again in 60 s.', {
        details: { retryAfterSec: 60 },
      }),
    );
    expect(formErrorsFrom(throttled, ['handle', 'password'])).toEqual({
      status: 429,
      errors: { form: 'Too many login attempts; try again in 60 s.' },
    });
    const aboutTheKey = toTrpcError(
      refusal('KEY_CONFLICT', 'This key is already registered to another account.', {
        field: 'did',
      }),
    );
    expect(formErrorsFrom(aboutTheKey, ['handle', 'password']).errors).toEqual({
      form: 'This key is already registered to another account.',
    });
  });

  it('reads tRPC’s own errors by their status, and rethrows what is not a TRPCError', () => {
    const plain = new TRPCError({ code: 'UNAUTHORIZED', message: 'Sign in first.' });
    expect(formErrorsFrom(plain, ['password'])).toEqual({
      status: 401,
      errors: { form: 'Sign in first.' },
    });
    const bug = new Error('boom');
    expect(() => formErrorsFrom(bug, [])).toThrow(bug);
  });
});
