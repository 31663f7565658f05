import { error } from '@sveltejs/kit';
import { loadFollowList } from '$lib/server/follow-list-load';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
  const data = await loadFollowList(event, 'following');
  if (
    !data.list.ok &&
    data.list.status < 500 &&
    data.list.status !== 404 &&
    data.list.status !== 400
  )
    error(data.list.status, { message: data.list.message, code: data.list.code });
  return data;
};
