import { z } from 'zod';
import { Priority } from '../../model/criterion';
import type { Outcome } from '../../model/outcome';
import type { CriterionResult } from '../../model/report';
import type { VerificationMethod } from '../../model/verification-method';
import { formatVerifySpec } from '../../prd/verify-spec';
import type { CriterionOutcome, CriterionRow, ToolVerifyAnswer, VerifyAnswer } from './answer-shapes';

/**
 * The done gate's answers, one shape for every way an agent outside Ideal State asks: the
 * MCP server (src/mcp), the editor's language-model tools and @ideal-state
 * (src/vscode/agents), and the stop hook (src/cli/gate/stop.ts over src/app/gate). Each builds them here from a
 * verification, so "done" and "why not" read the same to all of them.
 */

/** A criterion an agent proposes to add to a PRD (ideal-state_propose_criteria). */
export const ProposedCriterion = z.object({
  text: z.string().min(1).describe('The end state, e.g. "The README documents the --json option"'),
  priority: Priority.optional().describe('Default IMPORTANT: a proposed criterion is inferred; say CRITICAL when the work is not done without it'),
  verify: z.string().optional().describe('How it is verified, as after "Verify:" in a PRD, e.g. "Read: CHANGELOG.md", "CLI: npm test"'),
  anti: z.boolean().optional().describe('An anti-criterion: something that must NOT be true at the end'),
});
export type ProposedCriterion = z.infer<typeof ProposedCriterion>;

/** What a row is built from: a PRD's criterion or the engine's (an ISA's claims are CRITICAL criteria). */
export interface ListedCriterion {
  readonly id: string;
  readonly text: string;
  readonly kind: 'criterion' | 'anti-criterion';
  readonly priority: string;
  readonly verify?: VerificationMethod | undefined;
}

/** What the store last recorded of a criterion. */
export interface StoredCriterion {
  readonly text: string;
  readonly verify?: VerificationMethod | undefined;
  readonly outcome?: Outcome | undefined;
  readonly verifiedAt?: string | undefined;
}

/**
 * The criteria with their last stored outcome. An outcome is stale when the criterion's text
 * or method changed since it was stored, or when `staleSince` says the work changed after it
 * (the editor knows from its file watcher, the command line from modification times).
 */
export function criterionRows(criteria: readonly ListedCriterion[], stored: ReadonlyMap<string, StoredCriterion>, staleSince: (id: string, verifiedAt: string) => boolean): CriterionRow[] {
  return criteria.map((c) => {
    const s = stored.get(c.id);
    const last = s?.outcome && s.verifiedAt ? { outcome: s.outcome, verifiedAt: s.verifiedAt } : null;
    const changed = s !== undefined && (s.text !== c.text || JSON.stringify(s.verify ?? null) !== JSON.stringify(c.verify ?? null));
    return {
      id: c.id,
      text: c.text,
      kind: c.kind,
      priority: c.priority,
      verify: c.verify ? formatVerifySpec(c.verify, c.text) : null,
      lastOutcome: last,
      stale: last ? changed || staleSince(c.id, last.verifiedAt) : null,
    };
  });
}

/** Priorities by id: the criteria verified, or a prepared file's `info` (which names an ISA's claims by their own ids). */
export type Priorities = readonly { readonly id: string; readonly priority: string }[] | { info(id: string): { priority: string } | undefined };

/** The verification as the set the engine returned (under the file's own ids) gives it. */
export interface VerifiedSet {
  readonly results: readonly CriterionResult[];
  readonly summary: string;
  readonly counts: Record<string, number>;
  readonly passed?: boolean;
  readonly commands?: { readonly refused?: readonly { command: string; reason: string }[] };
}

/**
 * The done gate's verdict with each criterion's outcome, evidence and repair target. A
 * criterion whose priority is unknown counts as CRITICAL (fail closed). Whether every
 * CRITICAL one passes is judged over what was verified (some ids, or all); a set that says
 * it did not pass is never turned into a pass. `allowHint` tells where the user allows a
 * command that did not run.
 */
export function verifyAnswer(prd: string, priorities: Priorities, set: VerifiedSet, options: { allowHint?: string } = {}): VerifyAnswer {
  const priorityOf = 'info' in priorities ? (id: string) => priorities.info(id)?.priority : lookup(priorities);
  const results = set.results.map(
    (r): CriterionOutcome => ({
      id: r.criterionId,
      priority: priorityOf(r.criterionId) ?? 'CRITICAL',
      outcome: r.outcome,
      evidence: r.evidence,
      ...(r.failureLabel ? { failureLabel: r.failureLabel } : {}),
      ...(r.repairTarget ? { repairTarget: r.repairTarget } : {}),
      ...(r.locations.length > 0 ? { locations: r.locations.map((l) => ({ file: l.file, ...(l.line !== undefined ? { line: l.line } : {}) })) } : {}),
    }),
  );
  return {
    prd,
    allCriticalPass: set.passed !== false && results.filter((r) => r.priority === 'CRITICAL').every((r) => r.outcome === 'PASS'),
    summary: set.summary,
    counts: set.counts,
    results,
    skippedCommands: (set.commands?.refused ?? []).map((c) => ({ command: c.command, reason: options.allowHint ? `${c.reason} (${options.allowHint})` : c.reason })),
  };
}

function lookup(list: readonly { readonly id: string; readonly priority: string }[]): (id: string) => string | undefined {
  const byId = new Map(list.map((c) => [c.id, c.priority]));
  return (id) => byId.get(id);
}

/**
 * The answer for a verification of some ids: the verdict stands only when every CRITICAL
 * criterion of the file was among them. `file` names the file's ids and priorities (a
 * prepared PRD or ISA); without `only` the answer is the whole file's.
 */
export function coveringAnswer(answer: VerifyAnswer, file: { readonly ids: readonly string[]; info(id: string): { priority: string } | undefined }, only?: readonly string[]): ToolVerifyAnswer {
  if (!only) return answer;
  const verified = new Set(answer.results.map((r) => r.id));
  const covered = file.ids.filter((id) => (file.info(id)?.priority ?? 'CRITICAL') === 'CRITICAL').every((id) => verified.has(id));
  return covered ? { ...answer, partial: false } : { ...answer, allCriticalPass: null, partial: true };
}

/** The CRITICAL criteria of an answer that do not pass, then the others: what the agent must still do. */
export function notPassing(answer: VerifyAnswer): { critical: CriterionOutcome[]; others: CriterionOutcome[] } {
  const failing = answer.results.filter((r) => r.outcome !== 'PASS');
  return { critical: failing.filter((r) => r.priority === 'CRITICAL'), others: failing.filter((r) => r.priority !== 'CRITICAL') };
}
