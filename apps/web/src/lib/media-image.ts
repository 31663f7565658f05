import { decode } from 'blurhash';

/** Draws a blurhash on a 32 × 32 canvas: a data: URL, or null when it is not one. */
function placeholderUrl(hash: string): string | null {
  try {
    const size = 32;
    const pixels = decode(hash, size, size);
    const canvas = document.createElement('canvas');
    canvas.width = size;
    canvas.height = size;
    const context = canvas.getContext('2d');
    if (!context) return null;
    const image = context.createImageData(size, size);
    image.data.set(pixels);
    context.putImageData(image, 0, 0);
    return canvas.toDataURL();
  } catch {
    return null;
  }
}

/**
 * What a post's image does in the browser (issue #14 "Photos"): an uploaded photo's blurhash
 * shows behind it while it loads (set as the element's background through the CSSOM, which the
 * page's style policy allows; a data: image, which its img-src allows), and an image that fails
 * to load calls `onbroken` so the card shows its alt text instead of a broken icon. An
 * attachment (`{@attach}`), not `onerror` or an action: for those Svelte writes inline
 * `onerror="…"` handlers into the server-rendered markup, which the page's script policy
 * refuses; a load that failed before hydration is caught here too.
 */
export function mediaImage(options: { blurhash?: string; onbroken: () => void }) {
  return (node: HTMLImageElement) => attach(node, options);
}

function attach(node: HTMLImageElement, options: { blurhash?: string; onbroken: () => void }) {
  const broken = () => options.onbroken();
  node.addEventListener('error', broken);
  if (node.complete && node.naturalWidth === 0 && node.currentSrc) broken();
  if (options.blurhash && !(node.complete && node.naturalWidth > 0)) {
    const url = placeholderUrl(options.blurhash);
    if (url) {
      node.style.backgroundImage = `url(${url})`;
      node.style.backgroundSize = 'cover';
    }
  }
  return () => node.removeEventListener('error', broken);
}
