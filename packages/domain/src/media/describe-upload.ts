import { ok, POST_LIMITS, uuidSchema, type Result } from '@swarm/contract';
import type { Db } from '@swarm/db';
import { refuse, type Refusal } from '../refusal.ts';
import { readUpload } from './read-upload.ts';
import type { UploadView } from './upload-view.ts';

export interface UploadDescription {
  /** What the image shows; becomes the post's alt text unless the post says another. */
  description?: string;
  /** Mastodon's focal point, -1..1 each way. */
  focus?: { x: number; y: number };
}

/** A description and focal point as stored, or why not (the field named). */
export function checkUploadDescription(
  input: UploadDescription,
): Result<UploadDescription, Refusal> {
  const { description, focus } = input;
  if (description !== undefined && [...description].length > POST_LIMITS.altTextChars) {
    return refuse(
      'INVALID_REQUEST',
      `A description has at most ${POST_LIMITS.altTextChars} characters.`,
      { field: 'description' },
    );
  }
  if (focus && ![focus.x, focus.y].every((v) => Number.isFinite(v) && v >= -1 && v <= 1)) {
    return refuse('INVALID_REQUEST', 'A focal point is two numbers from -1 to 1: "x,y".', {
      field: 'focus',
    });
  }
  return ok(input);
}

/**
 * Sets what a photo upload shows and its focal point, until it is in a post (then the post is
 * what people see; it is refused as Mastodon does, as not found). Fields left out stay.
 */
export async function describeUpload(
  deps: { db: Db; base: string },
  ownerId: string,
  uploadId: string,
  input: UploadDescription,
): Promise<Result<UploadView, Refusal>> {
  const checked = checkUploadDescription(input);
  if (!checked.ok) return checked;
  const { description, focus } = checked.value;
  const unknown = () => refuse('NOT_FOUND', 'Record not found');
  if (!uuidSchema.safeParse(uploadId).success) return unknown();
  const { count } = await deps.db.prisma.upload.updateMany({
    where: { id: uploadId, ownerId, purpose: 'post', attachedAt: null, discardedAt: null },
    data: {
      ...(description !== undefined ? { description } : {}),
      ...(focus ? { focusX: focus.x, focusY: focus.y } : {}),
    },
  });
  if (count === 0) return unknown();
  const view = await readUpload(deps, ownerId, uploadId);
  return view ? ok(view) : unknown();
}
