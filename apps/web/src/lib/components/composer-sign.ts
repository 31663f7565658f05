import { page } from '$app/state';
import { hasKey, signPrepared } from '$lib/keys';
import { readPostForm, SIGNED_FIELDS } from '$lib/post-form-fields';
import { trpc } from '$lib/trpc';

/**
 * Before the composer's form goes: when this browser holds the author's key, the node prepares
 * the post as its followers' nodes will get it (a reserved id and time), this browser signs it,
 * and the signature rides along in hidden fields (docs/protocol.md "Post delivery"). Without a
 * key here, or when preparing fails, the post goes unsigned: the node still publishes and pushes
 * it, and a refusal (a bad link, a photo gone) comes back from the form action as usual.
 */
/**
 * Whether this browser can sign the signed-in person's posts: `here` (it holds their key),
 * `elsewhere` (their account has a key, this browser does not hold it: restore it in
 * Settings), `none` (their account has no key yet: create one there), or null (nobody signed in).
 */
export async function signingKeyState(): Promise<'here' | 'elsewhere' | 'none' | null> {
  const user: unknown = page.data.user;
  if (typeof user !== 'object' || user === null) return null;
  const { handle, did } = user as { handle?: unknown; did?: unknown };
  if (typeof handle !== 'string') return null;
  if (typeof did !== 'string' || did === '') return 'none';
  return (await hasKey(handle, did)) ? 'here' : 'elsewhere';
}

export async function signComposedPost(formData: FormData): Promise<boolean> {
  for (const name of Object.values(SIGNED_FIELDS)) formData.delete(name);
  const user: unknown = page.data.user;
  if (typeof user !== 'object' || user === null) return false;
  const { handle, did } = user as { handle?: unknown; did?: unknown };
  if (typeof handle !== 'string' || typeof did !== 'string') return false;
  if (!(await hasKey(handle, did))) return false;
  try {
    const prepared = await trpc.posts.prepare.mutate(readPostForm(formData));
    if (!prepared) return false; // not pushed (unlisted): nothing to sign
    const { signature } = await signPrepared(prepared, { handle, did });
    formData.set(SIGNED_FIELDS.id, String(prepared.body.id));
    formData.set(SIGNED_FIELDS.createdAt, String(prepared.body.createdAt));
    formData.set(SIGNED_FIELDS.signature, signature);
    return true;
  } catch {
    return false;
  }
}
