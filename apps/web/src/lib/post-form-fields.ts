// What the composer's form holds, read the same way in the browser (to prepare the post its
// author signs) and on the server (the form action): shaping only, the procedure validates.

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
  visibility?: 'public' | 'unlisted' | 'followers';
  /** The author's signature, made in the browser over what `posts.prepare` answered. */
  signed?: { id: string; createdAt: string; signature: string };
}

/** The hidden fields the composer adds when this browser signed the post (composer-sign.ts). */
export const SIGNED_FIELDS = {
  id: 'signedPostId',
  createdAt: 'signedPostAt',
  signature: 'postSignature',
} as const;

const VISIBILITIES = ['public', 'unlisted', 'followers'] as const;

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

  const visibility = VISIBILITIES.find((v) => v === text(form, 'visibility'));
  if (visibility) input.visibility = visibility;

  const signed = {
    id: text(form, SIGNED_FIELDS.id),
    createdAt: text(form, SIGNED_FIELDS.createdAt),
    signature: text(form, SIGNED_FIELDS.signature),
  };
  if (signed.id && signed.createdAt && signed.signature) input.signed = signed;
  return input;
}
