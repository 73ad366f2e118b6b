import { createReadStream } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { RegexWorker } from './regex-worker';
import { SearchPool } from './search-pool';
import { ignoredBy, type IgnoreLevel } from './search-scope';
import { compilePattern, MatchCollector, type SearchOutcome, type SearchRequest } from './search-types';

/** Files larger than this are read in chunks instead of whole. */
const WHOLE_FILE_BYTES = 8 * 1024 * 1024;
/** Folders read at once while walking. */
const CONCURRENT_READS = 32;

/**
 * The GREP search without ripgrep: walks the workspace as SearchScope says, streaming (no
 * list of every file is built), and matches the pattern line by line with JavaScript's
 * regex engine. Differences from ripgrep's dialect (documented in the README): `\w`, `\d`
 * and `\b` are ASCII here and Unicode in ripgrep; UTF-16 files are read as UTF-8.
 *
 * Files are read and matched in worker threads across the cores (SearchPool): each skips a
 * file without the pattern's required literal before decoding it, and this thread only walks
 * the folders. Files past WHOLE_FILE_BYTES are streamed here to one more worker (RegexWorker),
 * in chunks, so no file is held whole. Matching stays off this thread because JavaScript's
 * engine backtracks: `(a+)+$` over a long line of `a` would hold a thread for hours, and with
 * it every timer, the timeout and Ctrl+C. Here the timeout and the signal end the workers
 * mid-match and the search returns at once.
 */
export async function searchWithJs(request: SearchRequest, note?: string): Promise<SearchOutcome> {
  const compiled = compilePattern(request.pattern);
  if (!compiled.ok) return { kind: 'error', reason: `invalid regular expression: ${compiled.reason}` };
  if (request.signal.aborted) return { kind: 'cancelled' };
  const collector = new MatchCollector(request.maxLocations, request.maxFiles);
  const unreadable = new Set<string>();
  const scope = request.scope;
  const sink = { match: (file: string, n: number) => collector.add(file, n), unreadable: (file: string) => unreadable.add(file) };
  const large: string[] = [];
  let pool: SearchPool;
  try {
    pool = new SearchPool(compiled.regex, scope.root, { ...sink, large: (file) => large.push(file) }, { maxBytes: WHOLE_FILE_BYTES, ...(request.threads !== undefined ? { threads: request.threads } : {}) });
  } catch (error) {
    return { kind: 'error', reason: `the JS search could not start its worker threads: ${(error as Error).message}` };
  }
  /** Started for the first file too large to read whole, if any. */
  let worker: RegexWorker | undefined;
  let ending: 'timeout' | 'cancelled' | undefined;
  const stop = (why: 'timeout' | 'cancelled') => {
    ending ??= why;
    pool.stop();
    worker?.stop();
  };
  const timer = setTimeout(() => stop('timeout'), request.timeoutMs);
  const onAbort = () => stop('cancelled');
  request.signal.addEventListener('abort', onAbort, { once: true });
  const failure = () => pool.failure ?? worker?.failure;
  const stopped = () => ending !== undefined || failure() !== undefined;
  const limit = limiter(CONCURRENT_READS);

  /** The files too large to read whole, one at a time, streamed to a worker of their own. */
  const searchLarge = async (): Promise<void> => {
    for (const relative of large.sort()) {
      if (stopped()) return;
      worker ??= new RegexWorker(compiled.regex, sink);
      try {
        await searchLargeFile(path.join(scope.root, relative), relative, worker, stopped);
      } catch {
        unreadable.add(relative);
      }
    }
    await worker?.finish();
  };

  const walk = async (dir: string, parents: readonly IgnoreLevel[]): Promise<void> => {
    if (stopped()) return;
    const rules = await scope.ignoreRules(dir);
    const stack = rules.length > 0 ? [...parents, { base: dir, rules }] : parents;
    let entries;
    try {
      entries = await limit(() => fs.readdir(path.join(scope.root, dir), { withFileTypes: true }));
    } catch {
      unreadable.add(dir || '.');
      return;
    }
    const work: Promise<void>[] = [];
    for (const entry of entries) {
      const relative = dir === '' ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!scope.excluded(relative, true) && !ignoredBy(stack, relative, true)) work.push(walk(relative, stack));
      } else if (entry.isFile()) {
        if (scope.admitsFile(relative) && !ignoredBy(stack, relative, false)) pool.add(relative);
      }
      // Symlinks are not followed, as ripgrep does not follow them.
    }
    // Once per folder, not per file: the walk waits while the workers have plenty queued.
    await pool.room();
    await Promise.all(work);
  };

  try {
    // A stop returns at once; reads still in flight end on their own and find `stopped()`.
    const search = walk('', [])
      .then(() => pool.finish())
      .then(searchLarge);
    search.catch(() => undefined);
    // A stop (timeout, Ctrl+C) or a dead worker ends the pool; a stopped large-file worker releases every wait of `searchLarge`.
    await Promise.race([search, pool.whenEnded]);
  } finally {
    clearTimeout(timer);
    request.signal.removeEventListener('abort', onAbort);
    // Done with nothing stopped: the workers serve the next search; else they end here.
    if (stopped() || request.signal.aborted) {
      pool.stop();
      worker?.stop();
    } else {
      pool.release();
      worker?.release();
    }
  }
  if (request.signal.aborted || ending === 'cancelled') return { kind: 'cancelled' };
  if (ending === 'timeout') return { kind: 'timeout', timeoutMs: request.timeoutMs };
  if (failure() !== undefined) return { kind: 'error', reason: `the JS search failed: ${failure()}` };
  collector.unreadable = [...unreadable];
  return collector.result('js', note);
}

/** A file too large to read whole: its complete lines go to the worker chunk by chunk. */
async function searchLargeFile(absolute: string, relative: string, worker: RegexWorker, stopped: () => boolean): Promise<void> {
  // A NUL byte does not skip the file (ripgrep runs with --text): see search-worker.ts.
  let carry = '';
  let n = 1;
  let first = true;
  for await (const chunk of createReadStream(absolute, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
    if (stopped()) return;
    let text = carry + (chunk as string);
    if (first && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    first = false;
    const last = text.lastIndexOf('\n');
    if (last === -1) {
      carry = text;
      continue;
    }
    const whole = text.slice(0, last);
    carry = text.slice(last + 1);
    await worker.submit(relative, whole, n);
    n += countNewlines(whole) + 1;
  }
  if (carry !== '') await worker.submit(relative, carry, n);
}

function countNewlines(text: string): number {
  let count = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) count++;
  return count;
}

/** At most `n` of the given tasks at once. */
function limiter(n: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (active >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await task();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}
