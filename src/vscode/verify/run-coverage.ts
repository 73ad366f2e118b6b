// Pure: no editor imports, so the rules are unit-tested in plain Node.
import type { AnyCriterion, CriterionResult, VerificationReport } from '../../model';
import type { Coverage } from '../../verify/types';

/**
 * What a stored PASS depends on, rebuilt from the criterion's method and the result's
 * locations — the store keeps reports, not the verifier's coverage. The same rules as the
 * verifiers (src/verify/staleness.ts):
 * - GREP expecting a match: the files the result located a match in (a change elsewhere
 *   cannot take the match away); with no location, every file its glob covers;
 * - GREP expecting none (anti-criteria always): every file its glob covers, or the workspace;
 * - READ: its path;
 * - CLI, TASK, TEST, STATIC, CUSTOM, BROWSER, or no method: the whole workspace.
 */
export function coverageOf(criterion: AnyCriterion, result: Pick<CriterionResult, 'locations'>): Coverage {
  const method = criterion.verify;
  if (!method) return { workspace: true };
  switch (method.type) {
    case 'GREP': {
      const absent = criterion.kind === 'anti-criterion' || method.expect === 'absent';
      const files = [...new Set((result.locations ?? []).map((l) => normalize(l.file)))];
      if (!absent && files.length > 0) return { paths: files };
      return { globs: [method.glob === undefined ? '**' : method.glob.endsWith('/') ? `${method.glob}**` : method.glob] };
    }
    case 'READ':
      return { paths: [normalize(method.path)] };
    default:
      return { workspace: true };
  }
}

/** A criterion's newest verdict among these reports, with when and in which report it was given. */
export interface NewestVerdict {
  readonly result: CriterionResult;
  readonly reportId: string;
  readonly at: string;
}

export function newestVerdicts(reports: readonly VerificationReport[]): Map<string, NewestVerdict> {
  const out = new Map<string, NewestVerdict>();
  for (const report of [...reports].sort((a, b) => b.createdAt.localeCompare(a.createdAt))) {
    for (const result of report.results) if (!out.has(result.criterionId)) out.set(result.criterionId, { result, reportId: report.id, at: report.createdAt });
  }
  return out;
}

function normalize(file: string): string {
  return file.replace(/\\/g, '/').replace(/^\.\//, '');
}

/** The stored stale mark that still applies to this verdict: one made on this very verdict of a PASS. */
export function staleMarkOf<M extends { criterionId: string; reportId: string; verdictAt: string }>(marks: readonly M[], criterionId: string, verdict: NewestVerdict): M | undefined {
  if (verdict.result.outcome !== 'PASS') return undefined;
  return marks.find((m) => m.criterionId === criterionId && m.reportId === verdict.reportId && m.verdictAt === verdict.at);
}
