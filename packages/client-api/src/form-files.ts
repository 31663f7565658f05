import type { Result } from '@swarm/contract';
import { readParams, type Params } from './params.ts';

/**
 * A request's parameters and, for a multipart form, its files by field name (the first file of
 * each): what `update_credentials` reads. Other bodies are read as `readParams` does. The web
 * app's process bounds the body's size before it gets here.
 */
export async function readForm(
  request: Request,
): Promise<Result<{ params: Params; files: Record<string, File> }>> {
  const type = (request.headers.get('content-type') ?? '').split(';', 1)[0]!.trim().toLowerCase();
  if (type !== 'multipart/form-data') {
    const read = await readParams(request);
    return read.ok ? { ok: true, value: { params: read.value, files: {} } } : read;
  }
  const query = new URL(request.url).searchParams;
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    return { ok: false, reason: 'The request body could not be read.' };
  }
  const params: Params = Object.fromEntries(query.entries());
  const files: Record<string, File> = {};
  for (const [key, value] of form.entries()) {
    if (typeof value === 'string') params[key] = value;
    else if (!(key in files)) files[key] = value;
  }
  return { ok: true, value: { params, files } };
}
