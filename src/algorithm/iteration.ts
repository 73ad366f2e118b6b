import { PHASES, type AnyCriterion, type FailureLabel, type Phase, type VerificationReport } from '../model';
import type { PhaseGraph } from './phase-graph';
import type { StepMemo } from '../model/algorithm-state';

/**
 * Fail-closed: complete only when the verifier's report says passed AND every
 * criterion that blocks (CRITICAL, the default) has a PASS result in it. What a model says
 * about its own work never enters this.
 */
export function reportPasses(report: VerificationReport | undefined, criteria: readonly AnyCriterion[]): boolean {
  if (!report || !report.passed || criteria.length === 0) return false;
  const byId = new Map(report.results.map((r) => [r.criterionId, r]));
  return criteria.every((c) => c.priority !== 'CRITICAL' || byId.get(c.id)?.outcome === 'PASS');
}

/** Criteria the report does not show passing. */
export function unmetCriteria(report: VerificationReport | undefined, criteria: readonly AnyCriterion[]): AnyCriterion[] {
  const byId = new Map((report?.results ?? []).map((r) => [r.criterionId, r]));
  return criteria.filter((c) => byId.get(c.id)?.outcome !== 'PASS');
}

export type IterationDecision =
  | { readonly kind: 'complete' }
  | { readonly kind: 'loop'; readonly to: Phase; readonly label: FailureLabel; readonly streak: number; readonly replan: boolean }
  | { readonly kind: 'stop'; readonly reason: string };

export interface DecideInput {
  readonly report: VerificationReport | undefined;
  readonly criteria: readonly AnyCriterion[];
  readonly graph: PhaseGraph;
  readonly memo: StepMemo;
  /** 1-based iteration that just verified. */
  readonly iteration: number;
  /** null: until the budget runs out. */
  readonly maxIterations: number | null;
  /** Whose limit `maxIterations` is, for the stop reason (default: the level's). */
  readonly limitFrom?: 'the level' | 'the PRD';
}

const order = (p: Phase) => PHASES.indexOf(p);

/**
 * The iteration manager: loop back by failure
 * label (unclear requirement → THINK, wrong approach → PLAN, execution error → EXECUTE),
 * re-plan when the same label fails `replan_after` iterations in a row, stop at max
 * iterations or when the run is compressed.
 */
export function decideAfterVerify(input: DecideInput): IterationDecision {
  const { report, criteria, graph, memo } = input;
  if (reportPasses(report, criteria)) return { kind: 'complete' };
  if (memo.stopping) return { kind: 'stop', reason: memo.stopReason ?? memo.stopping };
  if (input.maxIterations !== null && input.iteration >= input.maxIterations) {
    const limit = `${input.maxIterations} iteration${input.maxIterations === 1 ? '' : 's'}`;
    return { kind: 'stop', reason: input.limitFrom === 'the PRD' ? `reached the PRD's max_iterations (${limit}) with criteria unmet` : `reached the level's ${limit} with criteria unmet` };
  }
  if (memo.compressed) return { kind: 'stop', reason: 'past the compress threshold of the wall-time budget' };
  const failing = (report?.results ?? []).filter((r) => r.outcome !== 'PASS');
  const labels = failing.map((r) => r.failureLabel ?? 'EXECUTION_ERROR');
  if (labels.length === 0) labels.push('REQUIREMENT_COVERAGE'); // criteria missing from the report
  const counts = new Map<FailureLabel, number>();
  for (const l of labels) counts.set(l, (counts.get(l) ?? 0) + 1);
  // The most fundamental failure decides: the label whose loop-back target comes earliest.
  const target = (l: FailureLabel): Phase => graph.loop_back[l] ?? 'EXECUTE';
  const label = [...counts.keys()].sort((a, b) => order(target(a)) - order(target(b)) || counts.get(b)! - counts.get(a)!)[0]!;
  const streak = memo.failureStreak?.label === label ? memo.failureStreak.count + 1 : 1;
  let to = target(label);
  const replan = streak >= graph.replan_after && order(to) > order('PLAN') && graph.nodes.PLAN !== undefined;
  if (replan) to = 'PLAN';
  return { kind: 'loop', to, label, streak, replan };
}

/** Effort decay in long loops: each later iteration gives an agent fewer steps, never under 2. */
export function decayedSteps(base: number, iteration: number): number {
  return Math.max(2, Math.floor(base * Math.pow(0.8, Math.max(0, iteration - 1))));
}
