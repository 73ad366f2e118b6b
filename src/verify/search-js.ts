import { createReadStream } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { RegexWorker } from './regex-worker';
import { ignoredBy, type IgnoreLevel } from './search-scope';
import { compilePattern, MatchCollector, type SearchOutcome, type SearchRequest } from './search-types';

/** Files larger than this are read in chunks instead of whole. */
const WHOLE_FILE_BYTES = 8 * 1024 * 1024;
const CONCURRENT_READS = 32;

/**
 * The GREP search without ripgrep: walks the workspace as SearchScope says, streaming (no
 * list of every file is built), and matches the pattern line by line with JavaScript's
 * regex engine. Differences from ripgrep's dialect (documented in the README): `\w`, `\d`
 * and `\b` are ASCII here and Unicode in ripgrep; UTF-16 files are read as UTF-8.
 *
 * The matching runs in a worker thread (RegexWorker), because JavaScript's engine
 * backtracks: `(a+)+$` over a long line of `a` would hold this thread for hours, and with
 * it every timer, the timeout and Ctrl+C. Here the timeout and the signal end the worker
 * mid-match and the search returns at once.
 */
export async function searchWithJs(request: SearchRequest, note?: string): Promise<SearchOutcome> {
  const compiled = compilePattern(request.pattern);
  if (!compiled.ok) return { kind: 'error', reason: `invalid regular expression: ${compiled.reason}` };
  if (request.signal.aborted) return { kind: 'cancelled' };
  const collector = new MatchCollector(request.maxLocations, request.maxFiles);
  const unreadable = new Set<string>();
  const scope = request.scope;
  let worker: RegexWorker;
  try {
    worker = new RegexWorker(compiled.regex, { match: (file, n) => collector.add(file, n), unreadable: (file) => unreadable.add(file) });
  } catch (error) {
    return { kind: 'error', reason: `the JS search could not start its worker thread: ${(error as Error).message}` };
  }
  let ending: 'timeout' | 'cancelled' | undefined;
  const stop = (why: 'timeout' | 'cancelled') => {
    ending ??= why;
    worker.stop();
  };
  const timer = setTimeout(() => stop('timeout'), request.timeoutMs);
  const onAbort = () => stop('cancelled');
  request.signal.addEventListener('abort', onAbort, { once: true });
  const stopped = () => ending !== undefined || worker.failure !== undefined;
  const limit = limiter(CONCURRENT_READS);

  const searchFile = async (relative: string): Promise<void> => {
    if (stopped()) return;
    const absolute = path.join(scope.root, relative);
    try {
      const handle = await fs.open(absolute, 'r');
      let buffer: Buffer | undefined;
      try {
        if ((await handle.stat()).size <= WHOLE_FILE_BYTES) buffer = await handle.readFile();
      } finally {
        await handle.close();
      }
      if (buffer) {
        if (buffer.length === 0 || buffer.includes(0)) return; // empty has no lines; binary is skipped, as ripgrep does
        let text = buffer.toString('utf8');
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
        if (text.endsWith('\n')) text = text.slice(0, -1);
        await worker.submit(relative, text, 1);
        return;
      }
      await searchLargeFile(absolute, relative, worker, stopped);
    } catch {
      unreadable.add(relative);
    }
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
        if (scope.admitsFile(relative) && !ignoredBy(stack, relative, false)) {
          work.push(limit(() => searchFile(relative)));
        }
      }
      // Symlinks are not followed, as ripgrep does not follow them.
    }
    await Promise.all(work);
  };

  try {
    // A stop returns at once; reads still in flight end on their own and find `stopped()`.
    const search = walk('', []).then(() => worker.finish());
    search.catch(() => undefined);
    await Promise.race([search, worker.whenEnded]);
  } finally {
    clearTimeout(timer);
    request.signal.removeEventListener('abort', onAbort);
    worker.stop();
  }
  if (request.signal.aborted || ending === 'cancelled') return { kind: 'cancelled' };
  if (ending === 'timeout') return { kind: 'timeout', timeoutMs: request.timeoutMs };
  if (worker.failure !== undefined) return { kind: 'error', reason: `the JS search failed: ${worker.failure}` };
  collector.unreadable = [...unreadable];
  return collector.result('js', note);
}

/** A file too large to read whole: its complete lines go to the worker chunk by chunk. */
async function searchLargeFile(absolute: string, relative: string, worker: RegexWorker, stopped: () => boolean): Promise<void> {
  // Binary check first, so a NUL late in the file still skips it (as ripgrep does).
  for await (const chunk of createReadStream(absolute, { highWaterMark: 1 << 20 })) {
    if (stopped()) return;
    if ((chunk as Buffer).includes(0)) return;
  }
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
