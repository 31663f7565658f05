import { redirect } from '@sveltejs/kit';
import { findSomeonePath } from '$lib/find-someone';
import type { PageServerLoad } from './$types';

// The "Find someone" form without JavaScript: GET /find?q=bob@beta.example → /@bob@beta.example.
export const load: PageServerLoad = ({ url }) => {
  const query = url.searchParams.get('q') ?? '';
  const path = findSomeonePath(query);
  if (path.ok) redirect(303, path.value);
  return { query, error: query.trim() === '' ? null : path.reason };
};
