import type { PageServerLoad } from './$types';

// The import page works in the browser only (the archive's key backup is decrypted there).
export const load: PageServerLoad = () => ({});
