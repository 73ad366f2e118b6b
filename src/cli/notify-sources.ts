import type { Approver } from '../agent/approvals';
import type { RunResult } from '../algorithm/engine-api';
import type { LoopResult } from '../app/loop';
import { loopFinishedData, runFinishedData } from '../app/notify/events';
import { gateEvents } from '../app/notify/gate-events';
import { logLine } from '../app/notify/notifier';
import type { PrdCheck, VerdictContext, GateDecision } from '../app/gate/verdict';
import type { LoopStartedBy } from '../model/loop';
import { notifyDetached, notifyNow } from './notify-event';

/**
 * The command line's event sources, each one call at its source: what each event's data is
 * made of lives here, so the commands themselves change by a line.
 */

type Warn = (line: string) => void;

/** `loop` ended: loop.finished, and schedule.failed when a schedule started it and it did not end COMPLETE. */
export async function loopEnded(result: LoopResult, startedBy: LoopStartedBy | undefined, workspace: string, warn: Warn): Promise<void> {
  const { loop } = result;
  const context = startedBy ? { startedBy } : {};
  await notifyNow('loop.finished', loopFinishedData(loop, result.unmet), context, { workspace, warn });
  if (startedBy?.who === 'schedule' && loop.state !== 'COMPLETE') await scheduleFailed(startedBy.schedule ?? '', loop.state, loop.reason ?? `${loop.total - loop.passing} of ${loop.total} artifacts unmet`, workspace, warn, loop.id);
}

/** A scheduled loop that ended short of COMPLETE, or could not start. */
export async function scheduleFailed(schedule: string, state: string, reason: string, workspace: string, warn: Warn, loopId?: string): Promise<void> {
  await notifyNow('schedule.failed', { schedule, state, reason, ...(loopId ? { loopId } : {}) }, { startedBy: { who: 'schedule', schedule } }, { workspace, warn });
}

/** `run` ended: run.finished with the criteria that did not pass. */
export async function runEnded(result: RunResult, workspace: string, warn: Warn): Promise<void> {
  await notifyNow('run.finished', runFinishedData(result), {}, { workspace, warn });
}

/** The terminal asks a person: approval.waiting goes out first (not awaited: the question is not held for it). */
export function withApprovalNotice(approver: Approver, workspace: string, warn: Warn, runId: () => string | undefined): Approver {
  return {
    ...approver,
    ask(request, signal) {
      void notifyNow('approval.waiting', { runId: runId() ?? 'unknown', kind: request.kind, subject: request.title }, {}, { workspace, warn });
      return approver.ask(request, signal);
    },
  };
}

/** After the gate's answer is printed: its events, from a detached process (the host is never held). */
/** The gate's stderr is read by its host (a block's reason): what goes wrong here goes to the notifications log instead. */
export async function gateAnswered(checks: readonly PrdCheck[], heldBy: VerdictContext['heldBy'], final: GateDecision, context: { host: string; agentBlocked: boolean; workspace: string; env: NodeJS.ProcessEnv }): Promise<void> {
  const warn = (line: string) => void logLine(line, context.env);
  try {
    for (const e of gateEvents(checks, heldBy, final, context)) await notifyDetached(e.event, e.data as never, {}, { workspace: context.workspace, warn, env: context.env });
  } catch (error) {
    warn(`the gate's notifications were not sent: ${error instanceof Error ? error.message : String(error)}`);
  }
}
