import { loadFollowList } from '$lib/server/follow-list-load';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = (event) => loadFollowList(event, 'followers');
