/** Longest notification excerpt of a mention or reply, in characters (code points). */
export const EXCERPT_CHARS = 500;

/** The start of a text for a notification: whole code points, an ellipsis when cut. */
export function excerpt(text: string, max: number = EXCERPT_CHARS): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

const MIME_BY_EXTENSION: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  svg: 'image/svg+xml',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mov: 'video/quicktime',
  mp3: 'audio/mpeg',
  ogg: 'audio/ogg',
};

/**
 * Reply bodies carry bare `mediaUrls`; a media item needs a type, so it is guessed from the
 * path's extension (unknown: `application/octet-stream`, which clients show as a link).
 */
export function guessMimeType(url: string): string {
  let pathname: string;
  try {
    pathname = new URL(url).pathname;
  } catch {
    return 'application/octet-stream';
  }
  const extension = /\.([A-Za-z0-9]+)$/.exec(pathname)?.[1]?.toLowerCase();
  return (extension && MIME_BY_EXTENSION[extension]) || 'application/octet-stream';
}
