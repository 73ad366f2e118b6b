// Module hooks (see loaded-register.mjs): each loaded file's URL and size, appended as it loads.
import { appendFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const out = process.env.IDEAL_STATE_LOADED_OUT;

export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context);
  if (out && url.startsWith('file:') && !url.endsWith('/loaded-register.mjs')) {
    // A CommonJS module may come back without its source (Node reads it itself): its file size then.
    const bytes = result.source == null ? statSync(fileURLToPath(url)).size : Buffer.byteLength(result.source);
    appendFileSync(out, `${url}\t${bytes}\n`);
  }
  return result;
}
