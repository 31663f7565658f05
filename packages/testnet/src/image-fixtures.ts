import sharp from 'sharp';

// Images for the upload tests and the upload benchmark (issue #14 "Photos"): made on the spot,
// small, and each one bad in exactly the way its test needs.

/** A JPEG taken "on a phone": EXIF with the camera's make, GPS coordinates and orientation 6. */
export async function phoneJpeg(
  options: { width?: number; height?: number; quality?: number } = {},
): Promise<Uint8Array<ArrayBuffer>> {
  const { width = 120, height = 80 } = options;
  // A gradient, so the encoder has something to do (a flat colour compresses to nothing).
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      pixels[i] = (x * 255) / width;
      pixels[i + 1] = (y * 255) / height;
      pixels[i + 2] = ((x + y) * 97) % 256;
    }
  }
  const bytes = await sharp(pixels, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: options.quality ?? 90 })
    .withMetadata({ orientation: 6 })
    .withExifMerge({
      IFD0: { Make: 'SwarmPhone', Model: 'Test Camera' },
      IFD3: {
        GPSLatitudeRef: 'N',
        GPSLatitude: '51/1 30/1 0/1',
        GPSLongitudeRef: 'W',
        GPSLongitude: '0/1 7/1 0/1',
      },
    })
    .toBuffer();
  return new Uint8Array(bytes);
}

/** Whether EXIF bytes hold a GPS section (the GPS IFD pointer, tag 0x8825, either byte order). */
export function exifHasGps(exif: Uint8Array | undefined): boolean {
  if (!exif) return false;
  const b = Buffer.from(exif);
  return b.includes(Buffer.from([0x88, 0x25])) || b.includes(Buffer.from([0x25, 0x88]));
}

/** A PNG with transparency. */
export async function smallPng(width = 64, height = 48): Promise<Uint8Array<ArrayBuffer>> {
  const bytes = await sharp({
    create: { width, height, channels: 4, background: { r: 20, g: 120, b: 200, alpha: 0.5 } },
  })
    .png()
    .toBuffer();
  return new Uint8Array(bytes);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])));
  return Buffer.concat([head, data, crc]);
}

/**
 * A decompression bomb's header: a valid PNG signature and IHDR claiming `width` × `height`
 * pixels, with one tiny IDAT and IEND. A few dozen bytes on the wire.
 */
export function pngClaiming(width: number, height: number): Uint8Array<ArrayBuffer> {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  return new Uint8Array(
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk('IHDR', ihdr),
      chunk('IDAT', new Uint8Array([0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])),
      chunk('IEND', new Uint8Array()),
    ]),
  );
}

/** A PDF document (to be sent named `photo.jpg`, typed image/jpeg). */
export const PDF_BYTES = new TextEncoder().encode(
  '%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n',
);

/** An SVG image that would run script if a browser opened it as a document. */
export const SVG_BYTES = new TextEncoder().encode(
  '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script><rect width="10" height="10"/></svg>',
);
