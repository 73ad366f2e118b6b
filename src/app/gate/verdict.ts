import { formatDiagnostic, type PrdDiagnostic } from '../../prd/diagnostics';
import { VERIFY_COMMANDS_FILE } from '../../verify/verify-commands-file';
import type { CriterionOutcome, VerifyAnswer } from './answer-shapes';
import { notPassing, verifyAnswer, type Priorities, type VerifiedSet } from './answers';
import type { LockChange } from './lock-changes';

/** What the gate decided: keep the agent working (with why), or let it stop (with a note for the user, if any). */
export type GateDecision = { kind: 'block'; reason: string; summary: string } | { kind: 'allow'; note?: string };

/** One held PRD's verification, as the command line's verifier returns it. */
export type GateVerification =
  | { kind: 'verified'; prd: Priorities; set: VerifiedSet; /** The PRD's text as verified. */ text?: string }
  | { kind: 'bad-input'; problems: readonly PrdDiagnostic[]; summary: string }
  | { kind: 'refused'; message: string }
  | { kind: 'cancelled'; message: string };

/** One held PRD: how it verified, and what changed since it was locked (or baselined). */
export interface PrdCheck {
  /** As given to the verifier (its messages name it so). */
  file: string;
  /** Workspace-relative, as the agent is told. */
  shown: string;
  /** Why the gate holds it (locked by whom, the session's PRD, named by --prd): every answer says. */
  why?: string;
  /** Absent when the file is gone: it is TAMPERED and nothing is verified. */
  result?: GateVerification;
  changes: readonly LockChange[];
  /** Priorities as locked: an agent's `[NICE]` does not make a locked CRITICAL criterion optional. */
  lockedPriorities?: ReadonlyMap<string, string>;
  /** Criteria whose check passed before any work was done: a pass that proves nothing about the agent's work. */
  probed?: readonly string[];
}

export interface VerdictContext {
  before: number;
  maxBlocks: number;
  /** What the PRDs were held to: a person's lock, or the session baseline. */
  heldBy: 'lock' | 'baseline' | 'none';
}

const APPROVE = '`ideal-state criteria approve` on a terminal, or "Ideal State: Approve Criteria Changes" in the editor';

/**
 * Blocks while a CRITICAL criterion does not pass, while a locked criterion or input changed
 * (TAMPERED), and while a held PRD cannot be verified at all (a broken PRD is not a done one),
 * until the limit of blocks in a row; then lets the agent stop and warns the user that it
 * stopped with the criteria unmet.
 */
export function gateVerdict(checks: readonly PrdCheck[], context: VerdictContext): GateDecision {
  const { before, maxBlocks } = context;
  const cancelled = checks.find((c) => c.result?.kind === 'cancelled');
  if (cancelled) return { kind: 'allow', note: `Ideal State: verification of ${cancelled.shown} was cancelled; not verified.` };
  const blocking: { summary: string; reason: string }[] = [];
  const notes: string[] = [];
  for (const check of checks) {
    const one = checkVerdict(check, context);
    if (one.kind === 'block') blocking.push(one);
    else if (one.note) notes.push(one.note);
  }
  if (blocking.length === 0) return { kind: 'allow', ...(notes.length > 0 ? { note: notes.join('\n') } : {}) };
  const summary = blocking.map((b) => b.summary).join(' ');
  const reason = blocking.map((b) => b.reason).join('\n\n');
  if (before >= maxBlocks) return { kind: 'allow', note: `${summary}\nThe agent was kept working ${before} time${before === 1 ? '' : 's'} in a row (--max-blocks ${maxBlocks}) and may stop now, with this not done.` };
  return { kind: 'block', summary, reason: `${reason}\n(Ideal State stop gate, block ${before + 1} of ${maxBlocks}.)` };
}

type OneVerdict = { kind: 'block'; summary: string; reason: string } | { kind: 'allow'; note?: string };

function checkVerdict(check: PrdCheck, context: VerdictContext): OneVerdict {
  const { shown, result } = check;
  const tampered = check.changes.map((c) => tamperedOutcome(c, context.heldBy));
  if (result === undefined || result.kind === 'verified' || result.kind === 'cancelled') {
    const answer = result?.kind === 'verified' ? heldAnswer(shown, result, check.lockedPriorities) : emptyAnswer(shown);
    answer.results.unshift(...tampered);
    const doubt = probeDoubt(shown, answer, check.probed);
    if (tampered.length === 0 && answer.allCriticalPass) {
      // Every answer names what was held and why, a pass too: the person sees which PRD let the agent stop.
      const notes = [`Ideal State: ${shown}${check.why ? ` (held: ${check.why})` : ''}: ${answer.summary}.`, ...(doubt ? [doubt] : [])];
      return { kind: 'allow', ...(notes.length > 0 ? { note: notes.join('\n') } : {}) };
    }
    const failing = failingReason(answer, context.heldBy, check.why);
    return { kind: 'block', ...failing, ...(doubt ? { reason: `${failing.reason}\n${doubt}` } : {}) };
  }
  if (result.kind === 'bad-input') {
    const summary = `Ideal State: ${result.summary.split(check.file).join(`${shown}${check.why ? ` (held: ${check.why})` : ''}`)}`;
    return { kind: 'block', summary, reason: [summary, ...result.problems.map((d) => `- ${formatDiagnostic(shown, d)}`), ...tamperedLines(tampered), 'Fix the PRD, then finish.'].join('\n') };
  }
  const summary = `Ideal State: ${shown}${check.why ? ` (held: ${check.why})` : ''} cannot be verified: ${result.message}`;
  return { kind: 'block', summary, reason: [summary, ...tamperedLines(tampered)].join('\n') };
}

/** The passing criteria a probe flagged: their checks passed before any work, so their PASS proves little until a person looks. */
function probeDoubt(shown: string, answer: VerifyAnswer, probed: readonly string[] | undefined): string | undefined {
  const ids = (probed ?? []).filter((id) => answer.results.some((r) => r.id === id && r.outcome === 'PASS'));
  if (ids.length === 0) return undefined;
  return `Ideal State: ${shown}: ${ids.join(', ')} passed before any work was done — can ${ids.length === 1 ? 'this check' : 'these checks'} fail?`;
}

function heldAnswer(shown: string, result: Extract<GateVerification, { kind: 'verified' }>, locked: ReadonlyMap<string, string> | undefined): VerifyAnswer {
  const answer = verifyAnswer(shown, result.prd, result.set);
  if (!locked) return answer;
  const results = answer.results.map((r) => ({ ...r, priority: locked.get(r.id) ?? r.priority }));
  return { ...answer, results, allCriticalPass: answer.allCriticalPass && results.filter((r) => r.priority === 'CRITICAL').every((r) => r.outcome === 'PASS') };
}

function emptyAnswer(shown: string): VerifyAnswer {
  return { prd: shown, allCriticalPass: false, summary: 'not verified', counts: {}, results: [], skippedCommands: [] };
}

function tamperedOutcome(change: LockChange, heldBy: VerdictContext['heldBy']): CriterionOutcome {
  const since = heldBy === 'baseline' ? 'since the person last spoke' : 'since a person locked it';
  const undo = heldBy === 'baseline' ? `put it back, or wait for the person to speak again or approve it (${APPROVE})` : `put it back as it was locked; only a person can approve the change (${APPROVE})`;
  return { id: change.id, priority: 'CRITICAL', outcome: 'TAMPERED', evidence: `${change.summary} ${since}\n${change.diff.map((d) => `  ${d}`).join('\n')}`, repairTarget: undo };
}

function tamperedLines(tampered: readonly CriterionOutcome[]): string[] {
  return tampered.map((t) => `- ${t.id} TAMPERED: ${t.evidence}\n  needs: ${t.repairTarget}`);
}

function failingReason(answer: VerifyAnswer, heldBy: VerdictContext['heldBy'], why: string | undefined): { reason: string; summary: string } {
  const shown = answer.prd;
  const { critical, others } = notPassing(answer);
  const line = (r: CriterionOutcome) => {
    // A TAMPERED row shows its whole diff; a verifier's evidence its first line.
    // A Grep's locations follow on a line of their own: the agent is told where the match is.
    const lines = r.evidence.split('\n');
    const where = lines.find((l) => l.startsWith('first: '));
    const evidence = r.outcome === 'TAMPERED' ? r.evidence : `${(lines[0] ?? '').slice(0, 200)}${where ? `; ${where.slice(0, 200)}` : ''}`;
    return `- ${r.id} ${r.outcome}${r.failureLabel ? ` [${r.failureLabel}]` : ''}: ${evidence}${r.repairTarget ? `\n  needs: ${r.repairTarget}` : ''}`;
  };
  const held = why ? ` (held: ${why})` : heldBy === 'lock' ? ' (as locked)' : heldBy === 'baseline' ? ' (as when the person last spoke)' : '';
  // Every CRITICAL criterion passes, yet not done (an ISA's fog left, its progress not M/N): the set's summary says why.
  // A criterion both TAMPERED and failing has two rows and is one criterion.
  const ids = [...new Set(critical.map((r) => r.id))];
  const summary = ids.length === 0 ? `Ideal State: not done. ${shown}${held}: ${answer.summary}.` : `Ideal State: not done. ${ids.length} CRITICAL criteri${ids.length === 1 ? 'on' : 'a'} of ${shown}${held} ${ids.length === 1 ? 'does' : 'do'} not pass: ${ids.join(', ')}.`;
  const out = [summary, ...critical.map(line)];
  if (others.length > 0) out.push('Also not passing (not CRITICAL):', ...others.map(line));
  if (answer.skippedCommands.length > 0) out.push(`Commands not run, so their criteria are UNKNOWN (the user allows them in ${VERIFY_COMMANDS_FILE}):`, ...answer.skippedCommands.map((c) => `- ${c.command}`));
  out.push(`Make these pass, then finish; \`ideal-state verify ${shown}\` shows the evidence.`);
  return { reason: out.join('\n'), summary };
}

/**
 * The live workspace changed while the gate verified a snapshot of it (frozen.ts): whatever the
 * checks said, the verdict is about a state no longer there, and something writes to the workspace
 * while the host waits for the gate (the agent's turn is over). A block, never a pass — until the
 * limit of blocks in a row, as any other.
 */
export function withWorkspaceChanges(decision: GateDecision, changes: readonly string[], context: Pick<VerdictContext, 'before' | 'maxBlocks'>): GateDecision {
  if (changes.length === 0) return decision;
  const summary = `Ideal State: not done. The workspace changed while the gate verified it: ${changes.join('; ')}.`;
  const reason = `${summary}\nThe checks ran in a copy of the workspace taken when the gate began; something wrote to it meanwhile, while the agent's turn was over. Stop whatever writes to the workspace (a watcher, a background build, a loop), then finish.`;
  if (context.before >= context.maxBlocks) return { kind: 'allow', note: `${summary}\nThe agent was kept working ${context.before} time${context.before === 1 ? '' : 's'} in a row (--max-blocks ${context.maxBlocks}) and may stop now, with this not done.` };
  if (decision.kind === 'block') return { kind: 'block', summary: `${decision.summary} ${summary}`, reason: `${reason}\n\n${decision.reason}` };
  return { kind: 'block', summary, reason: `${reason}\n(Ideal State stop gate, block ${context.before + 1} of ${context.maxBlocks}.)` };
}
