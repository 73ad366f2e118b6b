import { resolveEffortLevel } from '../model/effort-table';
import { DEFAULT_EFFORT_LEVEL, type EffortLevel, type EffortTable } from '../model';
import type { PrdDocument } from '../prd/model';

/** The PRD's effort level (its `effort_level`, aliases allowed), else STANDARD. */
export function effortOf(document: PrdDocument, table: EffortTable): EffortLevel {
  if (!document.meta.effort) return DEFAULT_EFFORT_LEVEL;
  const found = resolveEffortLevel(document.meta.effort, table);
  return found.ok ? found.level : DEFAULT_EFFORT_LEVEL;
}

/** Parallel verifiers for an effort level, from the effort table in force. */
export function parallelismOf(level: EffortLevel, table: EffortTable): number {
  return table.levels[level].parallelism;
}
