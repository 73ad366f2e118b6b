import type { ProcessRunner } from './process-runner';
import { findRipgrep } from './ripgrep-path';
import { ignoreChanges } from './search-approved';
import { searchWithRipgrep } from './search-ripgrep';
import type { SearchOutcome, SearchRequest } from './search-types';

/** The JS search, loaded when it is needed: its worker threads are nothing to a command whose ripgrep answers. */
async function searchWithJs(request: SearchRequest, note?: string): Promise<SearchOutcome> {
  return (await import('./search-js.js')).searchWithJs(request, note);
}

/**
 * A GREP search: ripgrep when there is one (started by `processes`, default this process), else
 * the JS search; also the JS search when ripgrep cannot read the pattern, or when the scope has
 * approved `.gitignore` texts and a file on disk differs from them (ripgrep reads the files on disk).
 */
export async function searchWorkspace(request: SearchRequest, ripgrepPath: string | undefined, processes?: ProcessRunner): Promise<SearchOutcome> {
  const rg = findRipgrep(ripgrepPath);
  if (!rg) return searchWithJs(request);
  const changed = (await ignoreChanges(request.scope, request.signal)).length > 0;
  if (request.signal.aborted) return { kind: 'cancelled' };
  if (changed) return searchWithJs(request, 'ripgrep reads the .gitignore files on disk, which differ from the approved ones: searched with the JS engine');
  const outcome = await searchWithRipgrep(rg, request, processes);
  if (outcome.kind !== 'pattern-rejected') return outcome;
  return searchWithJs(request, `ripgrep could not read the pattern (${outcome.reason}); searched with the JS engine`);
}
