import { adminLoad } from '../admin.server';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async ({ locals, url }) => ({
  users: await adminLoad(url, () => locals.api.admin.users.list()),
});
