import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import {
  exifHasGps,
  PDF_BYTES,
  phoneJpeg,
  pngClaiming,
  smallPng,
  SVG_BYTES,
} from '../src/image-fixtures.ts';
import { processImage, sniffImageType } from '@swarm/domain';

const MAX_PIXELS = 50_000_000;

describe('uploaded images', () => {
  it('reads the type from the bytes and names what it refuses', () => {
    expect(sniffImageType(PDF_BYTES)).toMatchObject({
      ok: false,
      reason: { code: 'UNSUPPORTED_MEDIA_TYPE', message: expect.stringContaining('a PDF') },
    });
    expect(sniffImageType(SVG_BYTES)).toMatchObject({
      ok: false,
      reason: { code: 'UNSUPPORTED_MEDIA_TYPE', message: expect.stringContaining('SVG') },
    });
    expect(sniffImageType(pngClaiming(10, 10))).toEqual({ ok: true, value: 'image/png' });
  });

  it('turns a phone photo upright and keeps none of its metadata', async () => {
    const original = await phoneJpeg({ width: 120, height: 80 });
    const before = await sharp(original).metadata();
    expect(exifHasGps(before.exif)).toBe(true);
    expect(before.orientation).toBe(6);

    const result = await processImage(original, { purpose: 'post', maxPixels: MAX_PIXELS });
    if (!result.ok) throw new Error(result.reason.message);
    // Orientation 6 is a quarter turn: 120 × 80 stored as 80 × 120.
    expect(result.value.display).toMatchObject({ width: 80, height: 120 });
    for (const file of [result.value.display, result.value.thumb]) {
      const after = await sharp(file.bytes).metadata();
      expect(after.format).toBe('webp');
      expect(after.exif).toBeUndefined();
      expect(after.xmp).toBeUndefined();
      expect(after.icc).toBeUndefined();
      expect(after.orientation).toBeUndefined();
    }
    expect(result.value.blurhash).toMatch(/^[0-9A-Za-z#$%*+,-.:;=?@[\]^_{|}~]{10,}$/);
  });

  it('makes a display size and a thumbnail, and crops avatars square', async () => {
    const big = await phoneJpeg({ width: 3000, height: 2000 });
    const post = await processImage(big, { purpose: 'post', maxPixels: MAX_PIXELS });
    if (!post.ok) throw new Error(post.reason.message);
    expect(post.value.display).toMatchObject({ width: 1067, height: 1600 });
    expect(post.value.thumb).toMatchObject({ width: 267, height: 400 });
    const avatar = await processImage(await smallPng(640, 480), {
      purpose: 'avatar',
      maxPixels: MAX_PIXELS,
    });
    if (!avatar.ok) throw new Error(avatar.reason.message);
    expect(avatar.value.display).toMatchObject({ width: 400, height: 400 });
  });

  it('refuses a decompression bomb from its header, before decoding', async () => {
    const bomb = pngClaiming(30_000, 30_000);
    expect(bomb.byteLength).toBeLessThan(100);
    const started = performance.now();
    const result = await processImage(bomb, { purpose: 'post', maxPixels: MAX_PIXELS });
    expect(result).toMatchObject({
      ok: false,
      reason: { code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining('too many pixels') },
    });
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('refuses a file that starts like an image but is not one', async () => {
    const broken = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(await processImage(broken, { purpose: 'post', maxPixels: MAX_PIXELS })).toMatchObject({
      ok: false,
      reason: { code: 'INVALID_REQUEST' },
    });
  });
});
