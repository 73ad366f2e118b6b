import { createReadStream } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { ignoredBy, type IgnoreLevel, type SearchScope } from './search-scope';
import type { Location } from './search-types';

/**
 * What a workspace search leaves out on purpose — files a `.gitignore` ignores and binary
 * files (a NUL byte) — looked at again for an anti-criterion: its pattern names the bad thing,
 * and an agent that `.gitignore`d the offending file or slipped a NUL into it made it vanish
 * from the search (issue 23). Bounded: past the limits the files not searched are named, and
 * the anti-criterion is UNKNOWN, never PASS.
 */
export const SKIPPED_SEARCH_LIMITS = { files: 2_000, totalBytes: 32 * 1024 * 1024, fileBytes: 4 * 1024 * 1024 };

export interface SkippedSearch {
  /** Matches in ignored or binary files, first ones by path then line. */
  locations: Location[];
  matchCount: number;
  /** Ignored or binary files searched. */
  searched: number;
  /** Files that should have been searched and were not (over a limit, unreadable). */
  notSearched: string[];
}

export async function searchSkippedFiles(scope: SearchScope, regex: RegExp, signal: AbortSignal, limits = SKIPPED_SEARCH_LIMITS): Promise<SkippedSearch> {
  const out: SkippedSearch = { locations: [], matchCount: 0, searched: 0, notSearched: [] };
  let bytes = 0;
  const search = (relative: string, buffer: Buffer) => {
    out.searched++;
    bytes += buffer.length;
    // NUL and other bytes as they are: a line is what lies between line feeds.
    const lines = buffer.toString('latin1').split('\n');
    lines.forEach((line, i) => {
      regex.lastIndex = 0;
      if (regex.test(line.replace(/\0/g, ' '))) {
        out.matchCount++;
        if (out.locations.length < 10) out.locations.push({ file: relative, line: i + 1 });
      }
    });
  };
  const candidate = async (relative: string, ignored: boolean) => {
    const absolute = path.join(scope.root, relative);
    const stat = await fs.stat(absolute).catch(() => undefined);
    if (!stat) return out.notSearched.push(relative);
    if (!ignored && !(await hasNul(absolute))) return; // the search read it already
    if (out.searched >= limits.files || stat.size > limits.fileBytes || bytes + stat.size > limits.totalBytes) return out.notSearched.push(relative);
    const buffer = await fs.readFile(absolute).catch(() => undefined);
    if (buffer === undefined) return out.notSearched.push(relative);
    search(relative, buffer);
  };
  const walk = async (dir: string, parents: readonly IgnoreLevel[], ignoredDir: boolean): Promise<void> => {
    if (signal.aborted) return;
    const rules = await scope.ignoreRules(dir);
    const stack = rules.length > 0 ? [...parents, { base: dir, rules }] : parents;
    const entries = await fs.readdir(path.join(scope.root, dir), { withFileTypes: true }).catch(() => undefined);
    if (!entries) return void out.notSearched.push(dir || '.');
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const relative = dir === '' ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!scope.excluded(relative, true)) await walk(relative, stack, ignoredDir || ignoredBy(stack, relative, true));
      } else if (entry.isFile() && scope.admitsFile(relative)) {
        await candidate(relative, ignoredDir || ignoredBy(stack, relative, false));
      }
    }
  };
  await walk('', [], false);
  return out;
}

async function hasNul(file: string): Promise<boolean> {
  try {
    for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) if ((chunk as Buffer).includes(0)) return true;
  } catch {
    return false;
  }
  return false;
}
