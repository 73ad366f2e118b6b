import type { AnyCriterion, CriterionResult, Decision, EffortLevel, FailureLabel, Outcome, Packet, Phase, VerificationMethod } from '../model';
import type { AlgorithmState } from '../model/algorithm-state';

/**
 * The views each role reads, built in code so no role reads more than it may. Each prompt
 * holds only the working set (current spec, active candidates, latest report, delta
 * summary) — never the whole history, so prompts stay flat as a run goes on.
 */

export interface CriterionLine {
  readonly id: string;
  readonly text: string;
  readonly kind: 'criterion' | 'anti-criterion';
  readonly priority: string;
  readonly status: string;
  readonly verify?: VerificationMethod;
  readonly outcome?: Outcome;
}

export interface FailureLine {
  readonly criterionId: string;
  readonly outcome: Outcome;
  readonly failureLabel?: FailureLabel;
  readonly repairTarget?: string;
}

/** The manager reads everything, but a prompt carries only the working set. */
export interface ManagerView {
  readonly role: 'manager';
  readonly request: string;
  readonly effort: EffortLevel;
  readonly phase: Phase;
  readonly iteration: number;
  readonly criteriaVersion: number;
  readonly criteria: readonly CriterionLine[];
  readonly packets: readonly { readonly id: string; readonly title: string; readonly criterionIds: readonly string[] }[];
  readonly activeCandidates: readonly { readonly packetId: string; readonly summary: string }[];
  readonly latestFailures: readonly FailureLine[];
  readonly delta: string;
  /** The last few decisions, for continuity; the full log is archive. */
  readonly recentDecisions: readonly { readonly decision: string; readonly rationale: string }[];
  readonly limits: { readonly minCriteria: number; readonly maxCriteria: number };
  /** OBSERVE only: criteria learned from similar past runs, with where each came from. */
  readonly learnedFromPastRuns?: readonly { readonly text: string; readonly from: string }[];
}

/** A specialist reads the task spec, its packet, and the reports on its own candidates. */
export interface SpecialistView {
  readonly role: 'specialist';
  readonly request: string;
  readonly packet: { readonly id: string; readonly title: string };
  readonly criteria: readonly CriterionLine[];
  readonly reportsOnItsWork: readonly FailureLine[];
}

/**
 * The auditor view (src/verify's AuditorView): the current criterion, the
 * candidate that worked it with its evidence, earlier results on it. There is no field
 * for decisions or other candidates, so no code path can put them in a verifier prompt.
 */
export interface AuditorView {
  readonly criterion: AnyCriterion;
  readonly criteriaVersion: number;
  readonly candidate?: { readonly id: string; readonly summary: string; readonly evidence: readonly string[] };
  readonly earlierResults: readonly CriterionResult[];
}

const line = (c: AnyCriterion): CriterionLine => ({
  id: c.id,
  text: c.text,
  kind: c.kind,
  priority: c.priority,
  status: c.status,
  ...(c.verify ? { verify: c.verify } : {}),
  ...(c.outcome ? { outcome: c.outcome } : {}),
});

const failures = (results: readonly CriterionResult[]): FailureLine[] =>
  results
    .filter((r) => r.outcome !== 'PASS')
    .map((r) => ({ criterionId: r.criterionId, outcome: r.outcome, ...(r.failureLabel ? { failureLabel: r.failureLabel } : {}), ...(r.repairTarget ? { repairTarget: r.repairTarget } : {}) }));

const RECENT_DECISIONS = 5;

export function managerView(state: AlgorithmState, phase: Phase, limits: ManagerView['limits'], learned: ManagerView['learnedFromPastRuns'] = []): ManagerView {
  const { run } = state;
  return {
    role: 'manager',
    request: run.request,
    effort: run.effort,
    phase,
    iteration: run.iteration,
    criteriaVersion: run.criteriaVersion,
    criteria: state.criteria.map(line),
    packets: state.packets.map((p: Packet) => ({ id: p.id, title: p.title, criterionIds: p.criterionIds })),
    activeCandidates: state.candidates.map((c) => ({ packetId: c.packetId, summary: clip(c.summary, 400) })),
    latestFailures: failures(state.report?.results ?? []),
    delta: state.memo.delta,
    recentDecisions: state.decisions.slice(-RECENT_DECISIONS).map((d: Decision) => ({ decision: d.decision, rationale: d.rationale })),
    limits,
    ...(learned.length > 0 ? { learnedFromPastRuns: learned } : {}),
  };
}

export function specialistView(state: AlgorithmState, packet: Packet): SpecialistView {
  const owned = new Set(packet.criterionIds);
  return {
    role: 'specialist',
    request: state.run.request,
    packet: { id: packet.id, title: packet.title },
    criteria: state.criteria.filter((c) => owned.has(c.id)).map(line),
    reportsOnItsWork: failures((state.report?.results ?? []).filter((r) => owned.has(r.criterionId))),
  };
}

export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
