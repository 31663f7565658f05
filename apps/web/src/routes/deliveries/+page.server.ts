import { failPage, loginRedirect } from '$lib/server/content-load';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async ({ locals, url }) => {
  if (!locals.user) loginRedirect(url);
  try {
    return { deliveries: await locals.api.deliveries.mine({ limit: 50 }) };
  } catch (cause) {
    failPage(cause, url);
  }
};
