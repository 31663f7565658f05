import { fail, type RequestEvent } from '@sveltejs/kit';
import { attempt, loginRedirect } from './content-load';

/**
 * Reads the composer's form fields into `posts.create` input. Only shaping happens here (blank
 * rows dropped, checkbox to boolean); the procedure validates, so a bad URL or too many media
 * comes back as its BAD_REQUEST message.
 */
export interface PostFormInput {
  content: string;
  /** Photos uploaded to this node (by upload id) first, then images by URL. */
  media?: ({ url: string; altText: string } | { uploadId: string; altText: string })[];
  isNsfw?: boolean;
  linkPreview?: { url: string; title?: string; description?: string; image?: string };
  replyToId?: string;
  replyToAuthorAddress?: string;
}

function text(form: FormData, name: string): string {
  const value = form.get(name);
  return typeof value === 'string' ? value.trim() : '';
}

export function readPostForm(form: FormData): PostFormInput {
  const content = form.get('content');
  const input: PostFormInput = { content: typeof content === 'string' ? content : '' };

  const uploadIds = form.getAll('mediaUpload');
  const uploadAlts = form.getAll('mediaUploadAlt');
  const uploads = uploadIds.flatMap((id, i) => {
    const alt = uploadAlts[i];
    return typeof id === 'string' && id.trim()
      ? [{ uploadId: id.trim(), altText: typeof alt === 'string' ? alt.trim() : '' }]
      : [];
  });
  const urls = form.getAll('mediaUrl');
  const alts = form.getAll('mediaAlt');
  const byUrl = urls.flatMap((url, i) => {
    const alt = alts[i];
    return typeof url === 'string' && url.trim()
      ? [{ url: url.trim(), altText: typeof alt === 'string' ? alt.trim() : '' }]
      : [];
  });
  const media = [...uploads, ...byUrl];
  if (media.length) input.media = media;

  if (form.get('isNsfw') === 'on') input.isNsfw = true;

  const previewUrl = text(form, 'previewUrl');
  if (previewUrl) {
    const preview: NonNullable<PostFormInput['linkPreview']> = { url: previewUrl };
    const title = text(form, 'previewTitle');
    const description = text(form, 'previewDescription');
    const image = text(form, 'previewImage');
    if (title) preview.title = title;
    if (description) preview.description = description;
    if (image) preview.image = image;
    input.linkPreview = preview;
  }

  const replyToId = text(form, 'replyToId');
  if (replyToId) input.replyToId = replyToId;
  const replyToAuthorAddress = text(form, 'replyToAuthorAddress');
  if (replyToAuthorAddress) input.replyToAuthorAddress = replyToAuthorAddress;
  return input;
}

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
    return fail(created.status, { for: 'composer' as const, error: created.message, input });
  }
  return {
    for: 'composer' as const,
    posted: { path: created.value.post.path },
    deliveries: created.value.deliveries,
  };
}
