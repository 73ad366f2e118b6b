import type { SearchScope } from './search-scope';

/** A GREP search over the workspace, by ripgrep or by the JS fallback, with the same answer. */
export interface SearchRequest {
  scope: SearchScope;
  /** Already checked with compilePattern. */
  pattern: string;
  signal: AbortSignal;
  timeoutMs: number;
  /** How many locations to keep (the first ones by file then line). Default 10. */
  maxLocations?: number;
  /** How many matched file names to keep for staleness; past it, `files` is undefined. Default 10,000. */
  maxFiles?: number;
  /** The search's threads (ripgrep's, or the JS search's workers): its share of the cores when other checks run beside it; absent: one per core (the JS search, at most four). */
  threads?: number;
}

export interface Location {
  file: string;
  line: number;
}

export type SearchOutcome =
  | {
      kind: 'done';
      engine: 'ripgrep' | 'js';
      /** Matching lines. */
      matchCount: number;
      /** Files with at least one matching line. */
      fileCount: number;
      /** The first matching lines, ordered by file path then line. */
      locations: Location[];
      /** Every file with a match, unless there were more than maxFiles. */
      files?: string[];
      /** Files that could not be read; their content is unknown. */
      unreadable: string[];
      /** Why the ripgrep search gave way to the JS one, when it did. */
      note?: string;
    }
  | { kind: 'timeout'; timeoutMs: number }
  | { kind: 'cancelled' }
  | { kind: 'error'; reason: string };

/** Keeps the smallest (file, line) pairs and every matched file, whatever order matches arrive in. */
export class MatchCollector {
  matchCount = 0;
  private readonly fileSet = new Set<string>();
  private readonly firsts: Location[] = [];
  unreadable: string[] = [];

  constructor(
    private readonly maxLocations = 10,
    private readonly maxFiles = 10_000,
  ) {}

  add(file: string, line: number): void {
    this.matchCount++;
    this.fileSet.add(file);
    const list = this.firsts;
    if (list.length === this.maxLocations && compare(list[list.length - 1]!, file, line) <= 0) return;
    let i = list.length;
    while (i > 0 && compare(list[i - 1]!, file, line) > 0) i--;
    list.splice(i, 0, { file, line });
    if (list.length > this.maxLocations) list.pop();
  }

  result(engine: 'ripgrep' | 'js', note?: string): Extract<SearchOutcome, { kind: 'done' }> {
    const files = this.fileSet.size <= this.maxFiles ? [...this.fileSet].sort() : undefined;
    return {
      kind: 'done',
      engine,
      matchCount: this.matchCount,
      fileCount: this.fileSet.size,
      locations: [...this.firsts],
      ...(files ? { files } : {}),
      unreadable: [...this.unreadable].sort(),
      ...(note ? { note } : {}),
    };
  }
}

function compare(a: Location, file: string, line: number): number {
  return a.file < file ? -1 : a.file > file ? 1 : a.line - line;
}

/**
 * A GREP pattern as JavaScript reads it: with the `u` flag (so `.` is one character, as in
 * ripgrep), else without it (for escapes like `\-` that `u` rejects). Invalid in both: the reason.
 */
export function compilePattern(pattern: string): { ok: true; regex: RegExp } | { ok: false; reason: string } {
  try {
    return { ok: true, regex: new RegExp(pattern, 'u') };
  } catch {
    try {
      return { ok: true, regex: new RegExp(pattern) };
    } catch (error) {
      return { ok: false, reason: (error as Error).message };
    }
  }
}
