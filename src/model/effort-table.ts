import shippedEffortData from './data/effort-levels.yaml?data';
import { parseYamlDataFile, type DataFileProblem } from './data-file';
import { EFFORT_LEVELS, EffortLevel, EffortTable, EffortTableOverride, type EffortSpec } from './effort';

export interface LoadedEffortTable {
  readonly table: EffortTable;
  /** Problems in the override; when there are any, the shipped table is used unchanged. */
  readonly problems: readonly DataFileProblem[];
}

/**
 * The effort table shipped with the extension, parsed when the extension was built
 * (build/yaml-data.mjs): every command reads it, and a stop hook's gate has no time for a YAML
 * parse. The unit tests check it against EffortTable and against the file read as a workspace
 * override is, so a problem here is a bug.
 */
export function shippedEffortTable(): EffortTable {
  // A bundler without the plugin leaves the file's text (esbuild drops the `?data`): say so, never a table of undefined levels.
  if (typeof shippedEffortData !== 'object' || shippedEffortData === null) throw new Error('the shipped effort table was bundled as text: bundle with the yaml-data plugin (build/yaml-data.mjs), as esbuild.mjs does');
  return shippedEffortData as EffortTable;
}

/**
 * The shipped table with a workspace override applied. An invalid override, or one
 * that makes the merged table invalid, is reported and ignored as a whole.
 */
export function loadEffortTable(override?: { file: string; text: string }): LoadedEffortTable {
  const shipped = shippedEffortTable();
  if (!override) return { table: shipped, problems: [] };
  const parsed = parseYamlDataFile(override.file, override.text, EffortTableOverride);
  if (!parsed.ok) return { table: shipped, problems: parsed.problems };
  const merged = mergeOverride(shipped, parsed.value);
  const valid = EffortTable.safeParse(merged);
  if (!valid.success) {
    return {
      table: shipped,
      problems: valid.error.issues.map((issue) => ({
        file: override.file,
        line: 1,
        column: 1,
        field: issue.path.map(String).join('.'),
        message: `after applying the override: ${issue.message}`,
      })),
    };
  }
  return { table: valid.data, problems: [] };
}

function mergeOverride(base: EffortTable, override: EffortTableOverride): EffortTable {
  const levels = { ...base.levels };
  for (const level of EFFORT_LEVELS) {
    const patch = override.levels?.[level];
    if (patch) levels[level] = { ...levels[level], ...stripUndefined(patch) } as EffortSpec;
  }
  return {
    version: 1,
    compressAtPercent: override.compressAtPercent ?? base.compressAtPercent,
    levels,
    aliases: { ...base.aliases, ...override.aliases },
  };
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export type EffortLookup = { ok: true; level: EffortLevel } | { ok: false; message: string };

/** Resolves a level name or one of its aliases, case-insensitively ("thorough" → EXTENDED). */
export function resolveEffortLevel(name: string, table: EffortTable): EffortLookup {
  const key = name.trim().toUpperCase();
  const direct = EffortLevel.safeParse(key);
  if (direct.success) return { ok: true, level: direct.data };
  const alias = table.aliases[key];
  if (alias) return { ok: true, level: alias };
  const known = [...EFFORT_LEVELS, ...Object.keys(table.aliases)].join(', ');
  return { ok: false, message: `unknown effort level "${name}"; use one of ${known}` };
}
