import { describe, expect, it } from 'vitest';
import {
  ERROR_CODES,
  ERROR_STATUS,
  errorBody,
  errorBodySchema,
  errorCodeSchema,
} from './errors.ts';

describe('error body', () => {
  it('lists the error codes with their statuses', () => {
    expect([...ERROR_CODES].sort()).toEqual(
      [
        'INVALID_REQUEST',
        'INVALID_SIGNATURE',
        'PROFILE_MISMATCH',
        'FORBIDDEN',
        'NODE_BLOCKED',
        'NOT_FOLLOWED',
        'POST_NOT_FOUND',
        'USER_NOT_FOUND',
        'NOT_FOUND',
        'KEY_CONFLICT',
        'HANDLE_TAKEN',
        'MESSAGE_CONFLICT',
        'DELIVERY_CONFLICT',
        'IDEMPOTENCY_CONFLICT',
        'METHOD_NOT_ALLOWED',
        'PAYLOAD_TOO_LARGE',
        'UNSUPPORTED_MEDIA_TYPE',
        'RATE_LIMITED',
        'STORAGE_FULL',
        'UPLOAD_QUOTA_EXCEEDED',
        'PEER_UNAVAILABLE',
        'PEER_TIMEOUT',
        'UNAVAILABLE',
        'INTERNAL',
        'UNAUTHORIZED',
      ].sort(),
    );
    expect(ERROR_STATUS.RATE_LIMITED).toBe(429);
    expect(ERROR_STATUS.PEER_TIMEOUT).toBe(504);
    expect(ERROR_STATUS.UNAVAILABLE).toBe(503);
    expect(errorCodeSchema.safeParse('NOPE').success).toBe(false);
  });

  it('builds and accepts { error, code, details? }', () => {
    expect(errorBody('POST_NOT_FOUND', 'No such post')).toEqual({
      error: 'No such post',
      code: 'POST_NOT_FOUND',
    });
    const withDetails = errorBody('INVALID_REQUEST', 'Bad body', [{ path: ['postId'] }]);
    expect(errorBodySchema.parse(withDetails)).toEqual(withDetails);
    expect(errorBodySchema.parse({ error: 'x', code: 'SOME_PEER_CODE', extra: 1 })).toEqual({
      error: 'x',
      code: 'SOME_PEER_CODE',
    });
  });

  it.each([
    [{ code: 'INTERNAL' }],
    [{ error: 'x' }],
    [{ error: 1, code: 'INTERNAL' }],
    [{ error: 'x', code: 'lower_case' }],
    [{ error: 'x', code: 'A__B' }],
  ])('rejects %j', (body) => {
    expect(errorBodySchema.safeParse(body).success).toBe(false);
  });
});
