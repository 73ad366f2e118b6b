import type { IsaDocument } from './model';

/** Why an ISA is not complete whatever its claims say: LifeOS's hard close checks (ISAGate H1–H3). */
export interface IsaCompletionProblem {
  readonly rule: 'fog-left' | 'progress-format' | 'anchors-missing';
  /** 0-based line the problem is at. */
  readonly line: number;
  readonly message: string;
}

const COUNT = /^\d+\/\d+$/;

/**
 * What keeps an ISA from being done besides its claims, as LifeOS's own Stop gate
 * (`LIFEOS/TOOLS/ISAGate.ts`) judges it: fog left in `## Not yet specified`, and at
 * `phase: complete` a `progress` that is not a plain `M/N` count or, when a
 * `principal_stated_goal` is set, a Test Strategy row without `anchors_to`. Fog blocks at
 * any phase here: the done gate holds an agent at each stop, as it does for a failing claim,
 * and work whose questions are still open is not done. Pure; empty when nothing is wrong.
 */
export function isaCompletionProblems(doc: IsaDocument): IsaCompletionProblem[] {
  const problems: IsaCompletionProblem[] = [];
  const complete = (doc.meta.phase ?? '').trim().toLowerCase() === 'complete';
  if (doc.fog.length > 0) {
    const n = doc.fog.length;
    const lines = doc.fog.slice(0, 8).map((f) => f.line + 1).join(', ');
    const claimed = complete ? ' though the ISA says phase: complete' : '';
    problems.push({
      rule: 'fog-left',
      line: doc.fog[0]!.line,
      message: `${n} unresolved line${n === 1 ? '' : 's'} in "## Not yet specified" (line${n === 1 ? '' : 's'} ${lines}${n > 8 ? ', …' : ''})${claimed}: the work is not fully specified, so it is not done; graduate each to a claim or drop it with a refined: entry in ## Decisions`,
    });
  }
  if (complete) {
    const raw = doc.frontmatter?.data.progress;
    const written = typeof raw === 'string' ? raw.trim() : raw === undefined ? '' : String(raw);
    if (!COUNT.test(written)) {
      problems.push({ rule: 'progress-format', line: doc.frontmatter?.open ?? 0, message: `phase: complete with progress "${written}", which is not a count M/N of closed claims; done is a count, not an opinion` });
    }
    const goal = doc.principalStatedGoal;
    if (typeof goal === 'string' && goal.trim() !== '') {
      const missing = doc.probes.filter((p) => !p.anchorsTo);
      if (missing.length > 0) {
        const ids = missing.slice(0, 8).map((p) => p.isc || `line ${p.line + 1}`).join(', ');
        problems.push({ rule: 'anchors-missing', line: missing[0]!.line, message: `phase: complete with a principal_stated_goal, but ${missing.length} Test Strategy row${missing.length === 1 ? '' : 's'} (${ids}${missing.length > 8 ? ', …' : ''}) ${missing.length === 1 ? 'has' : 'have'} no anchors_to; trace each to the literal goal or a named derivation` });
      }
    }
  }
  return problems;
}
