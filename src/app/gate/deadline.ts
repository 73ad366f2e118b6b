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

/** A criterion whose verification had not finished when the budget ran out, and how it is verified. */
export interface Unfinished {
  id: string;
  /** The command it runs (`npm test`), else its method (`Read: CHANGELOG.md`). */
  how?: string;
}

/** `ISC-X-003 (npm test), ISC-X-004 (Read: CHANGELOG.md)`: at most `max` named, then how many more. */
export function unfinishedList(unfinished: readonly Unfinished[], max = 5): string {
  const named = unfinished.slice(0, max).map((u) => (u.how ? `${u.id} (${u.how})` : u.id));
  const more = unfinished.length - named.length;
  return `${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}

/**
 * The block a host gets when the budget ran out: the agent is not let go unverified, and is
 * told what was still running ("verification did not finish in time: ISC-X-003 (npm test)
 * still running"), so the slow check is the one it speeds up.
 */
export function timedOutVerdict(
  shown: string,
  hostName: string,
  deadlineSeconds: number,
  budgetSeconds: number,
  criterionSeconds: number,
  unfinished: readonly Unfinished[] = [],
): { kind: 'block'; reason: string; summary: string } {
  const what = unfinished.length > 0 ? `${unfinishedList(unfinished)} still running (${shown})` : `${shown} was still being verified`;
  const summary = `Ideal State: verification did not finish in time: ${what} when the gate's ${budgetSeconds} s budget ran out (${hostName} waits ${deadlineSeconds} s for the hook).`;
  const reason = [
    summary,
    `Those criteria's checks (each bounded to ${criterionSeconds} s) had not finished, so nothing shows the work is done.`,
    `Make the slow checks faster, or give the hook more time (\`ideal-state gate install\` writes the host's timeout), then finish; \`ideal-state verify ${shown}\` shows which criterion is slow.`,
  ].join('\n');
  return { kind: 'block', reason, summary };
}
