import type { ApprovalAnswer, ApprovalRequest } from './approvals';

/**
 * An edit, configuration change or command of a run's agent that waits for a person: what every
 * surface shows. It is the agent's request as asked (title, path, proposed text, command…), with
 * its one-line `summary` (the request's `detail`), the run that asks and when it asked.
 */
export interface PendingApproval extends Omit<ApprovalRequest, 'detail' | 'runId'> {
  readonly id: string;
  readonly runId: string;
  /** A line summary of an edit, or the command line(s). */
  readonly summary: string;
  /** ISO time the agent asked. */
  readonly createdAt: string;
}

/** Who answered: the notification, the ISC table, the palette command, a cancelled run… */
export type DecisionSource = string;

export interface ApprovalDecision {
  readonly approval: PendingApproval;
  readonly answer: ApprovalAnswer;
  readonly via: DecisionSource;
}

/** What `decide` did: the first decision of a request wins; later ones are told it was taken. */
export type DecideResult = { readonly decided: true; readonly decision: ApprovalDecision } | { readonly decided: false; readonly reason: string };

interface Waiting {
  readonly approval: PendingApproval;
  readonly resolve: (answer: ApprovalAnswer) => void;
  readonly stopListening: () => void;
}

const SETTLED_KEPT = 500;
const CANCELLED_VIA = 'the run was cancelled';

/** Why a decision came too late: its run was cancelled, or another surface answered first. */
function lateReason(via: DecisionSource | undefined): string {
  if (via === undefined) return 'it was already answered (or its run ended)';
  if (via === CANCELLED_VIA) return 'its run was cancelled, so nothing was applied';
  return `it was already answered by ${via}`;
}

/**
 * The pending approvals of every run in this window, as state rather than as a dialog: each
 * request waits here until the first decision from any surface (the notification, the ISC
 * table, the palette) resolves it; the others then find it gone. Cancelling a run — or its
 * AbortSignal — denies what it left pending. "Always for this run" also approves the run's
 * other pending requests of the same kind, as it would have had they come a moment later —
 * except configuration changes, which are approved one at a time (see ApprovalPolicy).
 */
export class PendingApprovals {
  private readonly waiting = new Map<string, Waiting>();
  private readonly listeners = new Set<(runId: string) => void>();
  private readonly deciders = new Set<(decision: ApprovalDecision) => void>();
  /**
   * How recent requests were settled, so a late click (a notification VS Code cannot close,
   * whose run was cancelled meanwhile) is told why nothing happened. Bounded: the oldest go first.
   */
  private readonly settled = new Map<string, DecisionSource>();
  private next = 0;

  constructor(private readonly now: () => Date = () => new Date()) {}

  /** Fires with a run's id whenever its pending list changes (added or decided). */
  onDidChange(listener: (runId: string) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** Fires once per decided request (for logs, and to close what showed it). */
  onDidDecide(listener: (decision: ApprovalDecision) => void): { dispose(): void } {
    this.deciders.add(listener);
    return { dispose: () => this.deciders.delete(listener) };
  }

  /**
   * Registers a request of run `runId`; `answer` resolves with the first decision. An aborted
   * signal (the run cancelled) denies it.
   */
  add(runId: string, request: ApprovalRequest, signal: AbortSignal): { approval: PendingApproval; answer: Promise<ApprovalAnswer> } {
    const approval: PendingApproval = {
      id: `approval-${++this.next}`,
      runId,
      kind: request.kind,
      title: request.title,
      summary: request.detail,
      ...(request.path !== undefined ? { path: request.path } : {}),
      ...(request.proposed !== undefined ? { proposed: request.proposed } : {}),
      ...(request.creates ? { creates: true } : {}),
      ...(request.effect !== undefined ? { effect: request.effect } : {}),
      ...(request.kind === 'command' ? { command: request.command ?? request.detail } : {}),
      ...(request.cwd !== undefined ? { cwd: request.cwd } : {}),
      ...(request.kind === 'command' && request.remembersDenial ? { remembersDenial: true } : {}),
      createdAt: this.now().toISOString(),
    };
    let resolve!: (answer: ApprovalAnswer) => void;
    const answer = new Promise<ApprovalAnswer>((r) => (resolve = r));
    const onAbort = () => this.decide(approval.id, 'deny', CANCELLED_VIA);
    signal.addEventListener('abort', onAbort, { once: true });
    this.waiting.set(approval.id, { approval, resolve, stopListening: () => signal.removeEventListener('abort', onAbort) });
    if (signal.aborted) onAbort();
    else this.changed(runId);
    return { approval, answer };
  }

  /** The pending requests of one run (or of all runs), oldest first. */
  list(runId?: string): PendingApproval[] {
    return [...this.waiting.values()].map((w) => w.approval).filter((a) => runId === undefined || a.runId === runId);
  }

  get(id: string): PendingApproval | undefined {
    return this.waiting.get(id)?.approval;
  }

  /** Why a request is no longer pending, for a surface that still shows it: "its run was cancelled, so nothing was applied". */
  whyNotPending(id: string): string {
    return lateReason(this.settled.get(id));
  }

  /** Answers a pending request; a request already answered (or unknown) is left as it was. */
  decide(id: string, answer: ApprovalAnswer, via: DecisionSource): DecideResult {
    const w = this.waiting.get(id);
    if (!w) return { decided: false, reason: lateReason(this.settled.get(id)) };
    this.settle(w, answer, via);
    if (answer === 'always' && w.approval.kind !== 'config') {
      for (const other of this.list(w.approval.runId)) {
        if (other.kind === w.approval.kind) this.settle(this.waiting.get(other.id)!, 'approve', `always for this run (${via})`);
      }
    }
    this.changed(w.approval.runId);
    return { decided: true, decision: { approval: w.approval, answer, via } };
  }

  /** Denies every request the run left pending; returns how many. */
  cancelRun(runId: string, via: DecisionSource = CANCELLED_VIA): number {
    const pending = this.list(runId);
    for (const a of pending) this.settle(this.waiting.get(a.id)!, 'deny', via);
    if (pending.length > 0) this.changed(runId);
    return pending.length;
  }

  private settle(w: Waiting, answer: ApprovalAnswer, via: DecisionSource): void {
    this.waiting.delete(w.approval.id);
    this.settled.set(w.approval.id, via);
    if (this.settled.size > SETTLED_KEPT) this.settled.delete(this.settled.keys().next().value!);
    w.stopListening();
    w.resolve(answer);
    for (const listener of [...this.deciders]) listener({ approval: w.approval, answer, via });
  }

  private changed(runId: string): void {
    for (const listener of [...this.listeners]) listener(runId);
  }
}
