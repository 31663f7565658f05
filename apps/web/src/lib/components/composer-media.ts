/** Images per post, by URL and uploaded together (the server's limit). */
export const MAX_MEDIA = 4;

/** An image given by URL, with its alt text. */
export type MediaRow = { url: string; alt: string };

/** A photo from the device: uploading, uploaded (its id goes into the post), or failed. */
export type Photo = {
  key: number;
  name: string;
  state: 'uploading' | 'ready' | 'failed';
  id?: string;
  thumb?: string;
  error?: string;
  alt: string;
};

let photoKeys = 0;
/** A key for a photo row, unique in the page. */
export const nextPhotoKey = () => photoKeys++;
