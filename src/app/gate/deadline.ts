/**
 * The gate answers within its host's deadline. A host kills a hook that outlives its timeout
 * and lets the agent stop (Qwen Code at 0.15 killed the gate after 600 ms; Cline waits 30 s
 * while a criterion may take 120 s), and an answer that never arrives is an agent let go with
 * nothing said. So the gate keeps a total budget below the host's deadline, bounds each
 * criterion by it, and when it runs out answers "block: verification did not finish in time".
 */

/** Seconds kept back from the host's deadline for starting up and answering. */
export function gateBudgetSeconds(deadlineSeconds: number): number {
  const margin = Math.max(2, Math.min(30, deadlineSeconds * 0.1));
  return Math.max(1, Math.floor(deadlineSeconds - margin));
}

export interface Deadline {
  /** Aborts when the budget runs out, or when `outer` aborts. */
  signal: AbortSignal;
  budgetSeconds: number;
  /** Whether the budget (not the caller) ended the verification. */
  expired(): boolean;
  dispose(): void;
}

export function startDeadline(deadlineSeconds: number, outer?: AbortSignal): Deadline {
  const budgetSeconds = gateBudgetSeconds(deadlineSeconds);
  const controller = new AbortController();
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    controller.abort(new Error('deadline'));
  }, budgetSeconds * 1000);
  timer.unref?.();
  const onOuter = () => controller.abort(outer?.reason);
  outer?.addEventListener('abort', onOuter, { once: true });
  if (outer?.aborted) onOuter();
  return {
    signal: controller.signal,
    budgetSeconds,
    expired: () => expired,
    dispose: () => {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuter);
    },
  };
}

/** The block a host gets when the budget ran out: the agent is not let go unverified. */
export function timedOutVerdict(shown: string, hostName: string, deadlineSeconds: number, budgetSeconds: number, criterionSeconds: number): { kind: 'block'; reason: string; summary: string } {
  const summary = `Ideal State: verification did not finish in time: ${shown} was still being verified when the gate's ${budgetSeconds} s budget ran out (${hostName} waits ${deadlineSeconds} s for the hook).`;
  const reason = [
    summary,
    `Its criteria's commands (each bounded to ${criterionSeconds} s) were still running, so nothing shows the work is done.`,
    `Make the slow checks faster, or give the hook more time (\`ideal-state gate install\` writes the host's timeout), then finish; \`ideal-state verify ${shown}\` shows which criterion is slow.`,
  ].join('\n');
  return { kind: 'block', reason, summary };
}
