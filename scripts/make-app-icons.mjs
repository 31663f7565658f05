// Draws the web app's icons (apps/web/static/icon-*.png, for the web manifest and push
// notifications): a hexagon in the accent colour on white, the maskable safe zone kept clear.
// Run once when the design changes: `node scripts/make-app-icons.mjs`; the PNGs are committed.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// sharp is a dependency of the domain package (image processing), not of the root.
const sharp = createRequire(join(root, 'packages/domain/package.json'))('sharp');

const ACCENT = '#4338ca';

function svg(size) {
  const c = size / 2;
  const r = size * 0.3; // inside the 80 % safe zone of maskable icons
  const points = Array.from({ length: 6 }, (_, i) => {
    const a = (Math.PI / 3) * i - Math.PI / 2;
    return `${(c + r * Math.cos(a)).toFixed(2)},${(c + r * Math.sin(a)).toFixed(2)}`;
  }).join(' ');
  const inner = Array.from({ length: 6 }, (_, i) => {
    const a = (Math.PI / 3) * i - Math.PI / 2;
    return `${(c + r * 0.45 * Math.cos(a)).toFixed(2)},${(c + r * 0.45 * Math.sin(a)).toFixed(2)}`;
  }).join(' ');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}">
  <rect width="${size}" height="${size}" fill="#ffffff"/>
  <polygon points="${points}" fill="${ACCENT}"/>
  <polygon points="${inner}" fill="#ffffff"/>
</svg>`;
}

for (const size of [192, 512]) {
  const out = join(root, 'apps/web/static', `icon-${size}.png`);
  await sharp(Buffer.from(svg(size)))
    .png({ compressionLevel: 9 })
    .toFile(out);
  console.log(`wrote ${out}`);
}
