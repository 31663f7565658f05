import { fail, redirect } from '@sveltejs/kit';
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { loginPath, safeNextPath } from '$lib/next-path';
import type { Actions, PageServerLoad } from './$types';

// Mutes and blocks (issue #15): one block list (the messages' one), mutes of people and nodes.
// Profile pages post here too (with `next` to go back).

export const load: PageServerLoad = async ({ locals, url }) => {
  if (!locals.session) redirect(303, loginPath(url));
  const [mutes, blocks] = await Promise.all([
    locals.api.moderation.safety.mutes(),
    locals.api.moderation.safety.blocks(),
  ]);
  return { mutes, blocks };
};

function action(kind: 'mute' | 'unmute' | 'block' | 'unblock') {
  return async ({ request, locals, url }: Parameters<Actions[string]>[0]) => {
    if (!locals.session) redirect(303, loginPath(url));
    const form = await request.formData();
    const target = String(form.get('target') ?? '').trim();
    const next = String(form.get('next') ?? '');
    const safety = locals.api.moderation.safety;
    try {
      if (kind === 'mute') await safety.mute({ target });
      else if (kind === 'unmute') await safety.unmute({ target });
      else if (kind === 'block') await safety.block({ address: target });
      else await safety.unblock({ address: target });
    } catch (error) {
      if (!(error instanceof TRPCError)) throw error;
      return fail(getHTTPStatusCodeFromError(error), { kind, target, error: error.message });
    }
    if (next) redirect(303, safeNextPath(next));
    return { kind, target, done: true };
  };
}

export const actions: Actions = {
  mute: action('mute'),
  unmute: action('unmute'),
  block: action('block'),
  unblock: action('unblock'),
};
