import type { Approver } from '../../agent/approvals';
import type { RunResult } from '../../algorithm/engine-api';
import type { LoopResult } from '../../app/loop';
import { loopFinishedData, runFinishedData } from '../../app/notify/events';
import { gateEvents, type GateUnverified } from '../../app/notify/gate-events';
import { logLine } from '../../app/notify/notifier';
import type { PrdCheck, VerdictContext, GateDecision } from '../../app/gate/verdict';
import type { LoopStartedBy } from '../../model/loop';
import * as path from 'node:path';
import { parseStartedBy } from '../../app/schedule/schedule';
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

/**
 * A loop a schedule started that could not start or run (bad input, a glob that matches
 * nothing, a busy store, a crash) ends with no loop to tell of: schedule.failed says so, with
 * the last line it said on stderr. `loopEnded` covers a loop that ran and ended short.
 */
export async function withScheduleFailure(argv: readonly string[], io: { out: (s: string) => void; err: (s: string) => void }, run: (io: { out: (s: string) => void; err: (s: string) => void }) => Promise<number>): Promise<number> {
  const at = argv.indexOf('--started-by');
  const flag = at >= 0 ? argv[at + 1] : argv.find((a) => a.startsWith('--started-by='))?.slice('--started-by='.length);
  const schedule = flag === undefined ? undefined : parseStartedBy(flag);
  if (schedule?.who !== 'schedule' || argv[0] === 'merge') return run(io);
  let last = '';
  const said = { ...io, err: (line: string) => ((last = line), io.err(line)) };
  const ws = argv.indexOf('--workspace');
  const workspace = path.resolve(ws >= 0 && argv[ws + 1] ? argv[ws + 1]! : process.cwd());
  let code: number;
  try {
    code = await run(said);
  } catch (error) {
    await scheduleFailed(schedule.schedule, 'ERROR', error instanceof Error ? error.message : String(error), workspace, io.err);
    throw error;
  }
  // 2 is bad input, 5 a busy store: nothing ran (the other codes are a loop's end states, told by loopEnded).
  if (code === 2 || code === 5) await scheduleFailed(schedule.schedule, code === 2 ? 'NOT_STARTED' : 'STORE_BUSY', last.split('\n')[0]!.slice(0, 500) || `exit ${code}`, workspace, io.err);
  return code;
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
export async function gateAnswered(checks: readonly PrdCheck[], heldBy: VerdictContext['heldBy'], final: GateDecision, context: { host: string; agentBlocked: boolean; workspace: string; env: NodeJS.ProcessEnv; unverified?: GateUnverified }): Promise<void> {
  const warn = (line: string) => void logLine(line, context.env);
  try {
    for (const e of gateEvents(checks, heldBy, final, context)) await notifyDetached(e.event, e.data as never, {}, { workspace: context.workspace, warn, env: context.env });
  } catch (error) {
    warn(`the gate's notifications were not sent: ${error instanceof Error ? error.message : String(error)}`);
  }
}
