import type { AnyCriterion } from '../../model';
import { methodCommand } from '../../model/verification-method';
import { formatVerifySpec } from '../../prd/verify-spec';
import { recordVerdict } from './block-counter';
import { unfinishedList, type Unfinished } from './deadline';
import { answerFor, type GateVerdict, type HostAnswer, type StopRequest } from './hosts';

/** What the gate is doing, for the watchdog's answer: the request once read, the PRD being verified and its unfinished criteria. */
export interface WatchState {
  request?: StopRequest;
  /** A prompt-submit hook: recording the baseline, never answering a stop. */
  prompt?: boolean;
  workspace?: string;
  counter?: string;
  before: number;
  maxBlocks: number;
  verifying: string;
  pending: Map<string, AnyCriterion>;
  /** What the gate ignored (a state folder, loader variables): every answer says it. */
  notes: string[];
}

export function unfinishedOf(watch: WatchState): Unfinished[] {
  return [...watch.pending.values()].map((c) => ({ id: c.id, ...(c.verify ? { how: methodCommand(c.verify) ?? formatVerifySpec(c.verify, c.text) } : {}) }));
}

/** The watchdog's answer: a block, unless the agent was already kept working --max-blocks times in a row. */
export function watchdogVerdict(watch: WatchState, seconds: number): GateVerdict {
  const unfinished = unfinishedOf(watch);
  const what = unfinished.length > 0 ? `${unfinishedList(unfinished)} still running (${watch.verifying})` : watch.verifying ? `${watch.verifying} was still being read or verified` : "the host's payload was still being read";
  const summary = `Ideal State: verification did not finish within ${Math.round(seconds)} s: ${what}; the gate answers now, before its host stops waiting.`;
  if (watch.before >= watch.maxBlocks && watch.request) {
    return { kind: 'allow', note: `${summary}\nThe agent was kept working ${watch.before} times in a row (--max-blocks ${watch.maxBlocks}) and may stop now, unverified.` };
  }
  const reason = [
    summary,
    'Nothing shows the work is done. A check that does not end, or a file that is not a regular one (a FIFO or a device where a PRD, a settings file or a .gitignore was), keeps the gate waiting: put the files back as they were and make the checks end, then finish.',
  ].join('\n');
  return { kind: 'block', reason, summary };
}

/** A verdict with what the gate ignored added: to a block's reason, to a pass's note. */
export function withNotes(verdict: GateVerdict, notes: readonly string[]): GateVerdict {
  if (notes.length === 0) return verdict;
  if (verdict.kind === 'block') return { ...verdict, reason: [verdict.reason, ...notes].join('\n') };
  return { kind: 'allow', note: [...(verdict.note ? [verdict.note] : []), ...notes].join('\n') };
}


/**
 * What the watchdog says when the deadline comes before the answer: the host's blocking answer
 * once its payload is read (with the stop counted, as any block is, in a write it leaves to
 * finish); before that, a line on standard error.
 */
export type WatchdogAnswer = { kind: 'host'; answer: HostAnswer; after?: Promise<unknown> } | { kind: 'stderr'; text: string; code: number };

export function watchdogAnswer(watch: WatchState, seconds: number, now: Date): WatchdogAnswer {
  // A prompt hook's answer could block the person's own prompt: it says only on stderr that the baseline was not recorded.
  if (watch.prompt) return { kind: 'stderr', text: `Ideal State: the session baseline was not recorded within ${Math.round(seconds)} s.`, code: 0 };
  const verdict = watchdogVerdict(watch, seconds);
  if (watch.request) {
    const after = watch.counter ? recordVerdict(watch.counter, watch.request.sessionKey, verdict.kind === 'block' ? watch.before + 1 : 0, watch.maxBlocks, now).catch(() => undefined) : undefined;
    return { kind: 'host', answer: answerFor(watch.request, withNotes(verdict, watch.notes)), ...(after ? { after } : {}) };
  }
  // No payload yet, so no host format: exit 2 with the reason on stderr is a block to the hosts that read exit codes.
  return { kind: 'stderr', text: verdict.kind === 'block' ? verdict.reason : (verdict.note ?? ''), code: 2 };
}
