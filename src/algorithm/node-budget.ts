import type { Phase } from '../model';
import type { BudgetTracker } from './budget-tracker';
import type { NodeRole, PhaseNode } from './phase-graph';

/** While a person is being waited for, how often a node whose deadline came looks again. */
const RECHECK_MS = 250;

/** A node never gets less time than this: one model call needs that much, and below it the run's own budget governs. */
export const DEFAULT_MIN_NODE_MS = 15_000;

/** Thrown inside a node whose share of the budget ran out at a safe point; the engine compresses the run. */
export class NodeBudgetCutError extends Error {
  override readonly name = 'NodeBudgetCutError';
  /** What the engine tests (src/model/errors.ts `isNodeBudgetCut`); a bundler renames the class. */
  readonly code = 'node-budget-cut';
  constructor(readonly phase: Phase, readonly allowanceMs: number) {
    super(`${phase} used its share of the budget (${seconds(allowanceMs)} s)`);
  }
}

/**
 * A node's share of the budget, made real (phase-graph.yaml `budget`). The node
 * may use its share of the run's wall-time budget with the same tolerance as the run (the
 * compress threshold, 150 % by default), and never less than `minMs`. How it is held to
 * that depends on its role, so nothing a person is deciding is cut short:
 *
 * - manager: its model calls run under a signal that aborts at the deadline — a manager
 *   node is its model call, there is no later safe point;
 * - specialist: no packet starts after the deadline and each agent stops before its next
 *   step (`timeUp`); a step in flight, an approval being asked, finish first — and the time
 *   the approval waits for its person moves the deadline on by as much;
 * - verifier: each criterion's timeout is at most the node's whole allowance, so a report
 *   always comes out;
 * - system: nothing to hold.
 *
 * A node cut this way ends the way a spent budget does: the run compresses, verifies what
 * it has, and ends BUDGET_EXHAUSTED with its best candidate unless that passes.
 */
export class NodeDeadline {
  readonly allowanceMs: number;
  /** For the node's work: the run's signal, and for a manager node also the deadline. */
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout>;
  private passed = false;
  private readonly onRunAbort: () => void;

  constructor(readonly phase: Phase, node: Pick<PhaseNode, 'budget' | 'role'>, tracker: BudgetTracker, private readonly run: AbortSignal, minMs = DEFAULT_MIN_NODE_MS) {
    this.allowanceMs = allowanceMs(node.budget, tracker, minMs);
    this.onRunAbort = () => this.controller.abort(run.reason);
    if (run.aborted) this.controller.abort(run.reason);
    else run.addEventListener('abort', this.onRunAbort, { once: true });
    // Time the node waits for a person is not its time: the deadline moves on by every wait.
    const began = Date.now();
    const waitedBefore = tracker.waitedMs();
    const check = () => {
      const waited = tracker.waitedMs() - waitedBefore;
      const left = this.allowanceMs + waited - (Date.now() - began);
      if (waited > 0 && left > 0) {
        this.timer = setTimeout(check, Math.max(left, RECHECK_MS));
        return;
      }
      this.passed = true;
      if (cutsHard(node.role)) this.controller.abort(new NodeBudgetCutError(phase, this.allowanceMs));
    };
    this.timer = setTimeout(check, this.allowanceMs);
    this.signal = this.controller.signal;
  }

  /** The deadline has passed: take no new step. */
  timeUp(): boolean {
    return this.passed;
  }

  /** The node ended for its deadline, not because the run was cancelled. */
  cut(): boolean {
    return this.passed && !this.run.aborted;
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.run.removeEventListener('abort', this.onRunAbort);
  }
}

export function allowanceMs(share: number, tracker: BudgetTracker, minMs = DEFAULT_MIN_NODE_MS): number {
  return Math.max(minMs, Math.round((tracker.shareMs(share) * tracker.compressAtPercent) / 100));
}

function cutsHard(role: NodeRole): boolean {
  return role === 'manager';
}

function seconds(ms: number): string {
  return (Math.round(ms / 100) / 10).toString();
}
