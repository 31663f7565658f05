import { adminLoad } from '../admin.server';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async ({ locals, url }) => {
  const q = (url.searchParams.get('q') ?? '').trim().slice(0, 200);
  const before = url.searchParams.get('before') ?? undefined;
  const page = await adminLoad(url, () =>
    locals.api.moderation.admin.audit({ q: q || undefined, before: before || undefined }),
  );
  return { q, ...page };
};
