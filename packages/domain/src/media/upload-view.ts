import type { Prisma } from '@swarm/db';
import type { UploadPurpose } from './image-processing.ts';

/** What the uploader gets back, and what the composer and apps show. */
export interface UploadView {
  id: string;
  purpose: UploadPurpose;
  /** Absolute URL of the display image: what posts and profiles carry (peers fetch it). */
  url: string;
  thumbUrl: string;
  mimeType: string;
  width: number;
  height: number;
  blurhash: string;
  /** Bytes stored, both files together. */
  bytes: number;
  /** What the image shows, as an app set it before posting ("" when not said). */
  description: string;
  /** Mastodon's focal point, -1..1 each way; null: the centre. */
  focus: { x: number; y: number } | null;
  /** Already in a post (then it can no longer be changed). */
  attached: boolean;
}

export const uploadViewSelect = {
  id: true,
  purpose: true,
  mimeType: true,
  width: true,
  height: true,
  blurhash: true,
  bytes: true,
  description: true,
  focusX: true,
  focusY: true,
  attachedAt: true,
} as const satisfies Prisma.UploadSelect;

export type UploadViewRow = Prisma.UploadGetPayload<{ select: typeof uploadViewSelect }>;

/** An upload's row as its view; `base` is where the files are served (ends with `/`). */
export function uploadViewOf(base: string, row: UploadViewRow): UploadView {
  return {
    id: row.id,
    purpose: row.purpose as UploadPurpose,
    url: `${base}${row.id}.webp`,
    thumbUrl: `${base}${row.id}-thumb.webp`,
    mimeType: row.mimeType,
    width: row.width,
    height: row.height,
    blurhash: row.blurhash,
    bytes: row.bytes,
    description: row.description,
    focus: row.focusX === null || row.focusY === null ? null : { x: row.focusX, y: row.focusY },
    attached: row.attachedAt !== null,
  };
}
