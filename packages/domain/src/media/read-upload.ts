import { uuidSchema } from '@swarm/contract';
import type { Db } from '@swarm/db';
import { uploadViewOf, uploadViewSelect, type UploadView } from './upload-view.ts';

/** A person's photo upload by id, or null when it is not theirs (others' do not exist). */
export async function readUpload(
  deps: { db: Db; base: string },
  ownerId: string,
  uploadId: string,
): Promise<UploadView | null> {
  if (!uuidSchema.safeParse(uploadId).success) return null;
  const row = await deps.db.prisma.upload.findFirst({
    where: { id: uploadId, ownerId, purpose: 'post', discardedAt: null },
    select: uploadViewSelect,
  });
  return row ? uploadViewOf(deps.base, row) : null;
}
