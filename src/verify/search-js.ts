import { createReadStream } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
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
 */
export async function searchWithJs(request: SearchRequest, note?: string): Promise<SearchOutcome> {
  const compiled = compilePattern(request.pattern);
  if (!compiled.ok) return { kind: 'error', reason: `invalid regular expression: ${compiled.reason}` };
  const line = compiled.regex;
  const prefilter = new RegExp(line.source, `${line.flags}m`);
  const collector = new MatchCollector(request.maxLocations, request.maxFiles);
  const scope = request.scope;
  let timedOut = false;
  const timer = setTimeout(() => (timedOut = true), request.timeoutMs);
  const stopped = () => timedOut || request.signal.aborted;
  const limit = limiter(CONCURRENT_READS);

  const searchText = (relative: string, text: string, firstLine: number): void => {
    if (!prefilter.test(text)) return;
    let start = 0;
    let n = firstLine;
    while (start <= text.length) {
      let end = text.indexOf('\n', start);
      if (end === -1) end = text.length;
      if (line.test(text.slice(start, end))) collector.add(relative, n);
      start = end + 1;
      n++;
    }
  };

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
        searchText(relative, text, 1);
        return;
      }
      await searchLargeFile(absolute, relative, collector, line, stopped);
    } catch {
      collector.unreadable.push(relative);
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
      collector.unreadable.push(dir || '.');
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
    await walk('', []);
  } finally {
    clearTimeout(timer);
  }
  if (request.signal.aborted) return { kind: 'cancelled' };
  if (timedOut) return { kind: 'timeout', timeoutMs: request.timeoutMs };
  return collector.result('js', note);
}

async function searchLargeFile(absolute: string, relative: string, collector: MatchCollector, line: RegExp, stopped: () => boolean): Promise<void> {
  // Binary check first, so a NUL late in the file still skips it (as ripgrep does).
  for await (const chunk of createReadStream(absolute, { highWaterMark: 1 << 20 })) {
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
    let start = 0;
    for (let end = text.indexOf('\n', start); end !== -1; end = text.indexOf('\n', start)) {
      if (line.test(text.slice(start, end))) collector.add(relative, n);
      n++;
      start = end + 1;
    }
    carry = text.slice(start);
  }
  if (carry !== '' && line.test(carry)) collector.add(relative, n);
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
