import { confineGlob } from '../verify/confine';
import type { ProcessRunner } from '../verify/process-runner';
import { searchWorkspace } from '../verify/search';
import { SearchScope } from '../verify/search-scope';
import { compilePattern } from '../verify/search-types';
import { PathEscapeError, type SearchHit } from './workspace';

/** What the agent's search needs: the workspace root and a way to read a file's current text. */
export interface SearchSource {
  readonly root: string;
  readonly ripgrepPath?: string;
  /** Where ripgrep starts (the editor's process host); this process when not given. */
  readonly processes?: ProcessRunner;
  readFile(relative: string): Promise<string | undefined>;
}

/** Long enough for a large workspace without ripgrep; a run's step never waits longer on one search. */
export const SEARCH_TIMEOUT_MS = 30_000;

/**
 * The agent's search tool, shared by the editor's and the command line's workspaces: the
 * verification engine's search (ripgrep, or its JS fallback) with the glob confined to the
 * workspace, and each hit's line read through `readFile`, so an open editor's unsaved text
 * is what the agent sees there.
 *
 * A search that outlives its deadline (a pattern that backtracks catastrophically, a huge
 * workspace) is stopped and comes back to the model as an error it can act on; the JS
 * search runs its regex in a worker, so the run's own timers and cancellation keep working
 * while it searches.
 */
export async function searchForAgent(source: SearchSource, pattern: string, options: { glob?: string; limit: number; signal: AbortSignal; timeoutMs?: number }): Promise<SearchHit[]> {
  const compiled = compilePattern(pattern);
  if (!compiled.ok) throw new Error(compiled.reason);
  if (options.glob !== undefined) {
    const glob = confineGlob(options.glob);
    if (!glob.ok) throw new PathEscapeError(options.glob, glob.reason);
  }
  const scope = SearchScope.create(source.root, options.glob, [], []);
  const timeoutMs = options.timeoutMs ?? SEARCH_TIMEOUT_MS;
  const outcome = await searchWorkspace({ scope, pattern, signal: options.signal, timeoutMs, maxLocations: options.limit }, source.ripgrepPath, source.processes);
  if (outcome.kind === 'timeout') {
    throw new Error(`the search for /${pattern.length > 200 ? `${pattern.slice(0, 200)}…` : pattern}/ did not finish within ${timeoutMs / 1000} s and was stopped; use a simpler pattern (nested repetition like (a+)+ can take forever) or a narrower glob`);
  }
  if (outcome.kind !== 'done') throw new Error(outcome.kind === 'error' ? outcome.reason : `search ${outcome.kind}`);
  const lines = new Map<string, string[]>();
  const hits: SearchHit[] = [];
  for (const loc of outcome.locations) {
    if (!lines.has(loc.file)) lines.set(loc.file, ((await source.readFile(loc.file)) ?? '').split(/\r?\n/));
    hits.push({ file: loc.file, line: loc.line, text: (lines.get(loc.file)![loc.line - 1] ?? '').slice(0, 300) });
  }
  return hits;
}
