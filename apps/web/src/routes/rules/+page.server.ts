import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async ({ locals }) => ({
  registrations: await locals.api.auth.registrations(),
});
