import * as path from 'node:path';
import type { AnyCriterion, CriterionResult } from '../../core/model';

/** Which workspace files a PASS depends on: when one of them changes, the PASS is stale. */
export interface Coverage {
  covers(file: string): boolean;
}

const ANY: Coverage = { covers: () => true };

/**
 * READ depends on its file; GREP that expects a match on the files it matched in; GREP that
 * expects none on every file its glob names (a new match can appear anywhere); commands,
 * tasks, diagnostics and judges on the whole workspace.
 */
export function coverage(criterion: AnyCriterion, result: CriterionResult): Coverage {
  const method = criterion.verify;
  if (method?.type === 'READ') {
    const file = path.posix.normalize(method.path.replace(/^\.\//, ''));
    return { covers: (f) => f === file };
  }
  if (method?.type === 'GREP') {
    const present = (method.expect ?? 'present') === 'present';
    if (present && criterion.kind === 'criterion' && result.locations.length > 0) {
      const files = new Set(result.locations.map((l) => l.file));
      return { covers: (f) => files.has(f) };
    }
    const glob = method.glob;
    return glob ? { covers: (f) => path.posix.matchesGlob(f, glob) } : ANY;
  }
  return ANY;
}
