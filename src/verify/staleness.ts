import type { CriterionResult } from '../model';
import { compileGlob, type GlobRule } from './glob';
import type { Coverage } from './verdict';

/**
 * Which results a file change makes stale (a PASS becomes stale when a file it
 * covered changes, and so does any other outcome). The rules, from each verifier's coverage:
 * - GREP expecting a match: a change to one of the files that matched (a match elsewhere
 *   cannot take the PASS away); GREP expecting none (anti-criteria too): a change to any
 *   file its glob covers (whole workspace without a glob), since a new match may appear;
 * - READ: a change to its path (including its creation or deletion);
 * - CLI, TASK, TEST, STATIC, CUSTOM, BROWSER: any change in the workspace.
 * Changes to ignored paths (the PRD itself when results are written back, `.git`, build
 * output the caller knows to be irrelevant) make nothing stale.
 */
export interface StalenessOptions {
  /** Workspace-relative globs (gitignore-style) whose changes never make a PASS stale. Default: `.git`. */
  ignore?: readonly string[];
  /** A further test, e.g. the workspace's .gitignore. */
  isIgnored?: (relative: string) => boolean;
}

interface Entry {
  coverage: Coverage;
  globs: GlobRule[];
}

export class StalenessTracker {
  private readonly passes = new Map<string, Entry>();
  private readonly ignore: GlobRule[];

  constructor(private readonly options: StalenessOptions = {}) {
    this.ignore = (options.ignore ?? ['.git']).map((g) => compileGlob(g)).filter((r): r is GlobRule => r !== undefined);
  }

  /**
   * Records a result: every outcome is watched (staleness holds for every outcome —
   * a FAIL a change may have fixed is as stale as a PASS it may have broken). A non-PASS whose
   * verifier named nothing it read depends on the whole workspace.
   */
  record(result: CriterionResult, coverage: Coverage): void {
    if (result.outcome !== 'PASS' && !coverage.workspace && !coverage.paths?.length && !coverage.globs?.length) coverage = { workspace: true };
    const globs = (coverage.globs ?? []).map((g) => compileGlob(g)).filter((r): r is GlobRule => r !== undefined);
    this.passes.set(result.criterionId, { coverage, globs });
  }

  recordAll(results: readonly CriterionResult[], coverage: Readonly<Record<string, Coverage>>): void {
    for (const r of results) this.record(r, coverage[r.criterionId] ?? { workspace: true });
  }

  /**
   * The criterion ids whose PASS a change to `relative` (workspace-relative, forward slashes)
   * makes stale; they are no longer watched until recorded again.
   */
  changed(relative: string): string[] {
    const path = relative.replace(/\\/g, '/').replace(/^\.\//, '');
    if (this.isIgnored(path)) return [];
    const stale: string[] = [];
    for (const [id, entry] of this.passes) {
      if (covers(entry, path)) stale.push(id);
    }
    for (const id of stale) this.passes.delete(id);
    return stale;
  }

  /** The criterion ids whose result is still current. */
  get watched(): string[] {
    return [...this.passes.keys()];
  }

  private isIgnored(path: string): boolean {
    const parts = path.split('/');
    for (let i = 1; i <= parts.length; i++) {
      const prefix = parts.slice(0, i).join('/');
      if (this.ignore.some((r) => (!r.dirOnly || i < parts.length) && r.regex.test(prefix))) return true;
    }
    return this.options.isIgnored?.(path) ?? false;
  }
}

/** Pure form: which of these PASS results a change to `relative` makes stale. */
export function staleAfterChange(results: readonly CriterionResult[], coverage: Readonly<Record<string, Coverage>>, relative: string, options: StalenessOptions = {}): string[] {
  const tracker = new StalenessTracker(options);
  tracker.recordAll(results, coverage);
  return tracker.changed(relative);
}

function covers(entry: Entry, path: string): boolean {
  const c = entry.coverage;
  if (c.workspace) return true;
  if (c.paths?.some((p) => p === path || path.startsWith(`${p}/`))) return true;
  return entry.globs.some((g) => g.regex.test(path));
}
