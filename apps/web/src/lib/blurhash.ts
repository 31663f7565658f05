import { decode } from 'blurhash';

/**
 * Shows an uploaded photo's blurhash (issue #14 "Photos") behind the image while it loads: the
 * placeholder is drawn on a 32 × 32 canvas and set as the element's background (CSSOM, which the
 * page's style policy allows; a data: image, which its img-src allows).
 */
export function blurhashPlaceholder(node: HTMLElement, hash: string | undefined) {
  if (!hash) return;
  try {
    const size = 32;
    const pixels = decode(hash, size, size);
    const canvas = document.createElement('canvas');
    canvas.width = size;
    canvas.height = size;
    const context = canvas.getContext('2d');
    if (!context) return;
    const image = context.createImageData(size, size);
    image.data.set(pixels);
    context.putImageData(image, 0, 0);
    node.style.backgroundImage = `url(${canvas.toDataURL()})`;
    node.style.backgroundSize = 'cover';
  } catch {
    // Not a blurhash after all: the plain background stays.
  }
}
