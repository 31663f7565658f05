import { encode as encodeBlurhash } from 'blurhash';
import sharp, { type Metadata, type Sharp } from 'sharp';
import { refuse, type Refusal } from '../refusal.ts';
import { looksLike, MEDIA_TYPES } from './media-proxy.service.ts';
import type { Result } from '@swarm/contract';

/**
 * Uploaded images (issue #14 "Photos", docs/security.md "Uploads"): the type is read from the
 * bytes, never from the name or the declared type; only raster types are accepted; the pixel
 * count is read from the header before anything is decoded (a small file can claim 30000 ×
 * 30000 pixels and take gigabytes to decode); then the image is decoded once, turned upright
 * (EXIF orientation), and written anew as WebP without any of the original's metadata (EXIF,
 * GPS, XMP, ICC profiles and comments are not copied), in a display size and a thumbnail, with
 * a blurhash placeholder.
 */
export const IMAGE_SIZES = {
  /** Longest side of the display image of a post. */
  display: 1600,
  /** Longest side of the thumbnail. */
  thumb: 400,
  /** Avatars: square. */
  avatar: 400,
  /** Profile headers: 3:1. */
  header: { width: 1500, height: 500 },
  /** WebP quality of what is stored. */
  quality: 82,
} as const;

export type UploadPurpose = 'post' | 'avatar' | 'header';
export const UPLOAD_PURPOSES: readonly UploadPurpose[] = ['post', 'avatar', 'header'];

export interface ProcessedImage {
  mimeType: 'image/webp';
  display: { bytes: Uint8Array; width: number; height: number };
  thumb: { bytes: Uint8Array; width: number; height: number };
  blurhash: string;
}

const ACCEPTED = 'Upload a JPEG, PNG, WebP, GIF or AVIF image.';

/** What the first bytes say the file is: an accepted image type, or a refusal naming it. */
export function sniffImageType(
  bytes: Uint8Array,
): Result<string, Refusal<'UNSUPPORTED_MEDIA_TYPE'>> {
  for (const type of MEDIA_TYPES) {
    if (looksLike(type, bytes)) return { ok: true, value: type };
  }
  const head = Buffer.from(bytes.subarray(0, 512)).toString('latin1');
  const found = /^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE svg|<svg\b)/i.test(head)
    ? 'an SVG image (SVG is a document that can carry scripts; it is not accepted)'
    : head.startsWith('%PDF-')
      ? 'a PDF document'
      : /^....ftyp(heic|heix|mif1|msf1)/.test(head)
        ? 'a HEIC image (not accepted yet; most phones can share photos as JPEG)'
        : head.startsWith('BM')
          ? 'a BMP image'
          : /^(II\*\0|MM\0\*)/.test(head)
            ? 'a TIFF image'
            : 'not an image of a type this node reads';
  return refuse('UNSUPPORTED_MEDIA_TYPE', `This file is ${found}. ${ACCEPTED}`, {
    field: 'file',
  });
}

/** sharp's format names of the accepted types (AVIF is read by libheif as `heif`). */
const SHARP_FORMAT: Record<string, string[]> = {
  'image/jpeg': ['jpeg'],
  'image/png': ['png'],
  'image/webp': ['webp'],
  'image/gif': ['gif'],
  'image/avif': ['heif', 'avif'],
};

/** Decodes, checks and re-encodes an upload (see above). */
export async function processImage(
  bytes: Uint8Array,
  options: { purpose: UploadPurpose; maxPixels: number },
): Promise<
  Result<
    ProcessedImage,
    Refusal<'UNSUPPORTED_MEDIA_TYPE' | 'PAYLOAD_TOO_LARGE' | 'INVALID_REQUEST'>
  >
> {
  const sniffed = sniffImageType(bytes);
  if (!sniffed.ok) return sniffed;
  const input = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // First frame only (`pages: 1`); an animated GIF or WebP becomes a still image.
  const open = () =>
    sharp(input, { limitInputPixels: options.maxPixels, failOn: 'error', pages: 1 });
  let metadata: Metadata;
  try {
    // Reads the header only: nothing is decoded yet (the pixel bound is checked below, with
    // its own message).
    metadata = await sharp(input, { limitInputPixels: false, pages: 1 }).metadata();
  } catch {
    return refuse('INVALID_REQUEST', `This image cannot be read (damaged or cut short).`, {
      field: 'file',
    });
  }
  if (!SHARP_FORMAT[sniffed.value]?.includes(metadata.format ?? '')) {
    return refuse(
      'UNSUPPORTED_MEDIA_TYPE',
      `This file is not a ${sniffed.value} image. ${ACCEPTED}`,
      {
        field: 'file',
      },
    );
  }
  const width = metadata.width ?? 0;
  const height = metadata.pageHeight ?? metadata.height ?? 0;
  if (width < 1 || height < 1) {
    return refuse('INVALID_REQUEST', 'This image has no pixels.', { field: 'file' });
  }
  if (width * height > options.maxPixels) {
    return refuse(
      'PAYLOAD_TOO_LARGE',
      `This image has too many pixels (${width} × ${height}); at most ${options.maxPixels.toLocaleString('en')} are accepted.`,
      { field: 'file', details: { width, height, maxPixels: options.maxPixels } },
    );
  }
  try {
    return {
      ok: true,
      value: await encode(open, options.purpose, metadata.hasAlpha === true),
    };
  } catch {
    return refuse('INVALID_REQUEST', 'This image cannot be read (damaged or cut short).', {
      field: 'file',
    });
  }
}

async function encode(
  open: () => Sharp,
  purpose: UploadPurpose,
  hasAlpha: boolean,
): Promise<ProcessedImage> {
  const box =
    purpose === 'avatar'
      ? { width: IMAGE_SIZES.avatar, height: IMAGE_SIZES.avatar, fit: 'cover' as const }
      : purpose === 'header'
        ? { ...IMAGE_SIZES.header, fit: 'cover' as const }
        : { width: IMAGE_SIZES.display, height: IMAGE_SIZES.display, fit: 'inside' as const };
  // Decoded once (JPEG shrinks while decoding), upright, at display size, as raw pixels; the
  // stored files and the placeholder are made from these. Raw pixels carry no metadata at all.
  // An alpha channel only where the source has one and uses it (a JPEG never has one).
  const decoded = open()
    .rotate()
    .resize({ ...box, withoutEnlargement: true });
  const { data, info } = await (hasAlpha ? decoded.ensureAlpha() : decoded.removeAlpha())
    .raw()
    .toBuffer({ resolveWithObject: true });
  const channels = info.channels as 3 | 4;
  const raw = { raw: { width: info.width, height: info.height, channels } };
  const opaque = channels === 3 || !hasTransparency(data);
  const webp = (image: Sharp) =>
    image
      .webp({ quality: IMAGE_SIZES.quality, alphaQuality: 90, effort: 2 })
      .toBuffer({ resolveWithObject: true });
  const toFile = (image: Sharp) => (opaque && channels === 4 ? image.removeAlpha() : image);
  const [display, thumb, small] = await Promise.all([
    webp(toFile(sharp(data, raw))),
    webp(
      toFile(
        sharp(data, raw).resize({
          width: IMAGE_SIZES.thumb,
          height: IMAGE_SIZES.thumb,
          fit: 'inside',
          withoutEnlargement: true,
        }),
      ),
    ),
    sharp(data, raw)
      .resize({ width: 32, height: 32, fit: 'inside' })
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true }),
  ]);
  const componentsX = small.info.width >= small.info.height ? 4 : 3;
  const componentsY = small.info.width >= small.info.height ? 3 : 4;
  return {
    mimeType: 'image/webp',
    display: {
      bytes: new Uint8Array(display.data),
      width: display.info.width,
      height: display.info.height,
    },
    thumb: {
      bytes: new Uint8Array(thumb.data),
      width: thumb.info.width,
      height: thumb.info.height,
    },
    blurhash: encodeBlurhash(
      new Uint8ClampedArray(small.data.buffer, small.data.byteOffset, small.data.byteLength),
      small.info.width,
      small.info.height,
      componentsX,
      componentsY,
    ),
  };
}

/** Whether any pixel of RGBA `data` is not fully opaque. */
function hasTransparency(data: Buffer): boolean {
  for (let i = 3; i < data.length; i += 4) if (data[i] !== 255) return true;
  return false;
}
