import type { Frontmatter } from './frontmatter';
import type { PrdDialect, PrdMeta, PrdSection } from './model';

/**
 * PAI's own PRDs (PRDFORMAT v2: `task`, `slug`, `effort`, `phase`, `progress`, `mode`,
 * `started`, `updated`; sections Context, Criteria, Decisions, Verification) read into
 * the same model as this product's format.
 */
export function detectDialect(frontmatter: Frontmatter | undefined, sections: readonly PrdSection[]): PrdDialect {
  const data = frontmatter?.data ?? {};
  if (data.prd === true) return 'ideal-state';
  if ('task' in data || 'slug' in data) return 'pai-v2';
  const heading = sections.find((s) => s.kind === 'criteria')?.heading.toLowerCase();
  if (heading === 'criteria' && !sections.some((s) => s.kind === 'problem-space')) return 'pai-v2';
  return 'ideal-state';
}

export function readMeta(data: Record<string, unknown>): PrdMeta {
  const str = (...keys: string[]) => {
    for (const k of keys) {
      const v = data[k];
      if (typeof v === 'string' && v.trim()) return v;
      if (typeof v === 'number') return String(v);
      if (v instanceof Date) return v.toISOString();
    }
    return undefined;
  };
  const num = (key: string) => (typeof data[key] === 'number' && Number.isInteger(data[key]) ? (data[key] as number) : undefined);
  const meta: PrdMeta = {
    id: str('id', 'slug'),
    title: str('title', 'task'),
    status: str('status'),
    effort: str('effort_level', 'effort'),
    phase: str('phase', 'last_phase'),
    progress: str('progress', 'verification_summary'),
    mode: str('mode'),
    created: str('created', 'started'),
    updated: str('updated'),
    iteration: num('iteration'),
    maxIterations: num('max_iterations') ?? num('maxIterations'),
    runId: str('run_id'),
    loopId: str('loop'),
    criteriaVersion: num('criteria_version'),
  };
  return Object.fromEntries(Object.entries(meta).filter(([, v]) => v !== undefined)) as PrdMeta;
}
