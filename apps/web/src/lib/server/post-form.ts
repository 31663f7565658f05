import { fail, type RequestEvent } from '@sveltejs/kit';
import { readPostForm, type PostFormInput } from '../post-form-fields';
import { attempt, loginRedirect } from './content-load';

export { readPostForm, type PostFormInput } from '../post-form-fields';

/**
 * The composer's form action, the same for a new post and a reply (`replyToId`, from the page,
 * never from the form): the new post's path and its deliveries, or the form back with the
 * refusal.
 */
export async function composerAction(
  { request, locals, url }: Pick<RequestEvent, 'request' | 'locals' | 'url'>,
  replyToId?: string,
) {
  if (!locals.user) loginRedirect(url);
  const { replyToId: _ignored, ...fields } = readPostForm(await request.formData());
  const input: PostFormInput = replyToId === undefined ? fields : { ...fields, replyToId };
  const created = await attempt(url, () => locals.api.posts.create(input));
  if (!created.ok) {
    // Echoed back so nothing typed is lost; a signature is made again on the next try.
    const { signed: _signed, ...typed } = input;
    return fail(created.status, { for: 'composer' as const, error: created.message, input: typed });
  }
  return {
    for: 'composer' as const,
    posted: { path: created.value.post.path },
    deliveries: created.value.deliveries,
    pushedTo: created.value.pushedTo.length,
  };
}
