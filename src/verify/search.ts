import type { ProcessRunner } from './process-runner';
import { findRipgrep } from './ripgrep-path';
import { searchWithRipgrep } from './search-ripgrep';
import type { SearchOutcome, SearchRequest } from './search-types';

/** The JS search, loaded when it is needed: its worker threads are nothing to a command whose ripgrep answers. */
async function searchWithJs(request: SearchRequest, note?: string): Promise<SearchOutcome> {
  return (await import('./search-js.js')).searchWithJs(request, note);
}

/** A GREP search: ripgrep when there is one (started by `processes`, default this process), else (or when it cannot read the pattern) the JS search. */
export async function searchWorkspace(request: SearchRequest, ripgrepPath: string | undefined, processes?: ProcessRunner): Promise<SearchOutcome> {
  const rg = findRipgrep(ripgrepPath);
  if (!rg) return searchWithJs(request);
  const outcome = await searchWithRipgrep(rg, request, processes);
  if (outcome.kind !== 'pattern-rejected') return outcome;
  return searchWithJs(request, `ripgrep could not read the pattern (${outcome.reason}); searched with the JS engine`);
}
