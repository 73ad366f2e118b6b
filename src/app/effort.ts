import { resolveEffortLevel } from '../model/effort-table';
import { DEFAULT_EFFORT_LEVEL, type EffortLevel, type EffortTable } from '../model/effort';

/** What a person may name at a prompt or on the command line besides a level: let the classifier choose. */
export const AUTO = 'AUTO';

export type EffortChoice = { ok: true; level: EffortLevel | typeof AUTO } | { ok: false; message: string };

/**
 * The one way an effort name becomes a level: a level or one of its aliases, any case
 * ("thorough" → EXTENDED). Nothing written means STANDARD; `AUTO` only where the caller
 * allows it; an unknown name is an error that lists the names there are — never a silent
 * STANDARD.
 */
export function resolveEffort(name: string | undefined, table: EffortTable, options: { auto?: boolean } = {}): EffortChoice {
  const written = (name ?? '').trim();
  if (written === '') return { ok: true, level: DEFAULT_EFFORT_LEVEL };
  if (options.auto && written.toUpperCase() === AUTO) return { ok: true, level: AUTO };
  const found = resolveEffortLevel(written, table);
  return found.ok ? found : { ok: false, message: options.auto ? `${found.message}, or AUTO` : found.message };
}

/**
 * A PRD's `effort_level`. The PRD linter reports a name it does not know (file and line);
 * verifying or running it then uses STANDARD, and says so in `warning`.
 */
export function prdEffort(written: string | undefined, table: EffortTable): { level: EffortLevel; warning?: string } {
  const found = resolveEffort(written, table);
  if (found.ok && found.level !== AUTO) return { level: found.level };
  return { level: DEFAULT_EFFORT_LEVEL, warning: `${found.ok ? 'AUTO' : found.message}: verified at ${DEFAULT_EFFORT_LEVEL}` };
}
