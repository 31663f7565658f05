import type { PageServerLoad } from './$types';

// The import page works in the browser only (the archive's key backup is decrypted there). An
// import makes a new account here, so the node's registrations mode applies as for a sign-up.
export const load: PageServerLoad = async ({ locals, url }) => {
  const { mode } = await locals.api.auth.registrations();
  return { mode, invite: url.searchParams.get('invite') ?? '' };
};
