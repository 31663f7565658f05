import { error, fail, redirect } from '@sveltejs/kit';
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { messageAddress } from '$lib/messages/address';
import { loginPath } from '$lib/next-path';
import { nobodyCalled } from '$lib/profile-address';
import type { Actions, PageServerLoad } from './$types';

type Api = App.Locals['api'];

/** The recipient as the node sees them, or why they cannot be written to (node down, no one). */
async function recipientOf(api: Api, address: string) {
  try {
    return { ok: true as const, value: await api.messages.recipient({ address }) };
  } catch (cause) {
    if (!(cause instanceof TRPCError)) throw cause;
    const message = cause.code === 'NOT_FOUND' ? `${nobodyCalled(address)}.` : cause.message;
    return { ok: false as const, message };
  }
}

export const load: PageServerLoad = async ({ locals, url, params }) => {
  if (!locals.session) redirect(303, loginPath(url));
  // Not `parent()`: refreshing the layout's badges must not fetch the recipient again.
  const info = await locals.api.node.info();
  const address = messageAddress(params.address, info.domain);
  if (!address.ok) error(404, address.reason);
  // One address, one URL: `/messages/@bob` and `/messages/bob` become `/messages/bob@here`.
  if (address.value !== params.address) redirect(308, `/messages/${address.value}`);
  const [me, thread, recipient, blocks] = await Promise.all([
    locals.api.messages.me(),
    locals.api.messages.thread({ with: address.value }),
    recipientOf(locals.api, address.value),
    locals.api.messages.blocks(),
  ]).catch((cause: unknown) => {
    // An address the node reads differently from this page: its sentence, with its status.
    if (cause instanceof TRPCError) error(getHTTPStatusCodeFromError(cause), cause.message);
    throw cause;
  });
  if (me.address === address.value) error(400, 'You cannot send messages to yourself.');
  // Their node's spelling of the handle (`Bob@b.example` typed, `bob@b.example` it is).
  if (recipient.ok && recipient.value.address !== address.value) {
    redirect(308, `/messages/${recipient.value.address}`);
  }
  return {
    address: address.value,
    me,
    thread,
    recipient,
    blocked: blocks.some((b) => b.address === address.value),
    displayName: thread.with.displayName || null,
  };
};

async function blockAction(locals: App.Locals, url: URL, address: string, block: boolean) {
  if (!locals.session) redirect(303, loginPath(url));
  try {
    if (block) await locals.api.messages.block({ address });
    else await locals.api.messages.unblock({ address });
  } catch (cause) {
    if (!(cause instanceof TRPCError)) throw cause;
    return fail(400, { blockError: cause.message });
  }
  return { blocked: block };
}

export const actions: Actions = {
  block: ({ locals, url, params }) => blockAction(locals, url, params.address, true),
  unblock: ({ locals, url, params }) => blockAction(locals, url, params.address, false),
};
