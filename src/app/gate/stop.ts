import * as path from 'node:path';
import type { VerifySetResult, ApprovedIgnores } from '../../verify/types';
import { verifyPrdFile, type VerifyPrdOutcome } from '../verify-prd-file';
import { agentBlockedNote, takeAgentBlocked, withBlockedStatus } from './agent-blocked';
import { blocksSoFar, gateStateFile, recordVerdict } from './block-counter';
import { checkHeld } from './check';
import { startDeadline, timedOutVerdict } from './deadline';
import { freezeHeld } from './freeze-held';
import { gateWorkspace, heldSet, recordBaseline, shellWord } from './held';
import { answerFor, HOST_NAMES, hostAdapter, hostWill, readStopPayload, type GateHost, type GateVerdict, type HostAdapter, type HostAnswer, type StopRequest } from './hosts';
import { stopIsElsewhere } from './hosts/project';
import { dropLoaderVariables } from './loader-variables';
import type { GateUnverified } from '../notify/gate-events';
import { leaveGateOutcome } from './outcome-record';
import { keepLastSessionEntry, sessionMark } from './session-log';
import { stateFolderRefusal, withStateRefusal } from './state-refused';
import { unfinishedOf, withNotes, type WatchState } from './stop-watch';
import { gateVerdict, withWorkspaceChanges, type GateDecision, type PrdCheck, type VerdictContext } from './verdict';

/**
 * The done gate's stop: the hook's payload in, the host's answer out. Everything the gate
 * decides is here — which workspace and PRDs it holds the agent to, how many stops in a row it
 * has kept from happening, the budget under the host's deadline, the prompt's baseline and the
 * words of the PRD's LOG entry. The command line (src/cli/gate/stop.ts) only reads standard input,
 * starts the watchdog and prints what this returns.
 */
export interface StopInput {
  /** The payload as the host sent it on standard input ('' when the host sends none). */
  readonly stdin: string;
  /** `--host`; absent: told by the payload's shape. */
  readonly host?: GateHost;
  /** `--prompt`: the host's prompt-submit hook. */
  readonly prompt: boolean;
  readonly prd?: string;
  /** `--workspace`. */
  readonly workspace?: string;
  readonly userLevel: boolean;
  readonly maxBlocks: number;
  /** Per criterion. */
  readonly timeoutSeconds: number;
  /** `--deadline`: how long the host waits (absent: the host's own). */
  readonly deadlineSeconds?: number;
  readonly yes: boolean;
  /** `--no-log`: nothing is written into the PRD. */
  readonly noLog: boolean;
  /** The store for the report (absent: the workspace's), or false for none. */
  readonly store: string | false | undefined;
  /** The host's environment; loader variables are removed from it. */
  readonly env: NodeJS.ProcessEnv;
  readonly processCwd: string;
  /** When the gate began (ms since the epoch); absent: the end of the current millisecond. */
  readonly startedMs?: number;
  /** How an agent runs this gate's own command line, for the honest way out a block names. */
  readonly selfCommand: string;
  readonly signal?: AbortSignal;
}

export interface StopPorts {
  /** Standard error: what the gate ignored, warnings; never the host's answer. */
  readonly warn: (s: string) => void;
  /** What the gate is doing, read by the watchdog should the answer come too late. */
  readonly watch: WatchState;
  /** The host is known: its deadline applies from now on. */
  readonly rearm: (adapter: HostAdapter | undefined) => void;
}

/** The host's answer, or an exit code alone (a payload that cannot be read; a prompt hook; another project's stop). */
/** What the verdict was made of, for whoever tells people of it after the host has its answer (notifications). */
export interface StopSettled {
  readonly checks: readonly PrdCheck[];
  readonly heldBy: VerdictContext['heldBy'];
  readonly verdict: GateVerdict;
  readonly host: string;
  readonly agentBlocked: boolean;
  readonly workspace: string;
  readonly env: NodeJS.ProcessEnv;
  /** The deadline came first: what was not verified (the checks are then empty). */
  readonly unverified?: GateUnverified;
}

export type StopOutcome = { kind: 'answer'; answer: HostAnswer; settled?: StopSettled } | { kind: 'exit'; code: number };

/** How long the host waits for the hook: `--deadline`, else the host's own default. */
export function stopDeadlineSeconds(deadline: number | undefined, adapter: HostAdapter | undefined): number {
  return deadline !== undefined && deadline > 0 ? deadline : (adapter?.defaultDeadlineSeconds ?? 600);
}

export async function gateStop(input: StopInput, ports: StopPorts): Promise<StopOutcome> {
  const { watch, warn } = ports;
  const payload = readStopPayload(input.host, input.stdin);
  if (!payload.ok) {
    warn(`ideal-state gate: ${payload.message}`);
    return { kind: 'exit', code: 2 };
  }
  const request = payload.request;
  const adapter = hostAdapter(request.host);
  watch.request = request;
  ports.rearm(adapter);
  const env = input.env;
  const workspace = await gateWorkspace({ ...(input.workspace ? { flag: input.workspace } : {}), host: request.host, env, processCwd: input.processCwd });
  // A gate in the user's (or managed) settings runs in every project (`gate install --scope`
  // writes --user-level): named to one workspace, it lets another project's stop through untouched.
  if (input.userLevel && input.workspace && stopIsElsewhere(request, workspace, env, input.processCwd)) return { kind: 'exit', code: 0 };
  watch.verifying = `the criteria of ${workspace}`;
  watch.workspace = workspace;
  watch.counter = await gateStateFile(workspace, env);
  const now = new Date();
  // What the agent could have injected and the gate ignored, said on stderr and in the answer.
  const loaders = dropLoaderVariables(env);
  const refusal = await stateFolderRefusal(workspace, env);
  watch.notes.push(...(refusal ? [refusal] : []), ...loaders.notes);
  for (const n of [...watch.notes.filter((n) => !loaders.notes.includes(n)), ...loaders.stderr]) warn(n);

  if (input.prompt || PROMPT_EVENTS.has(request.event) || adapter?.promptSubmitEvent === request.event) {
    watch.prompt = true;
    await promptBaseline(workspace, input, now, warn);
    return { kind: 'exit', code: 0 };
  }
  const answer = (verdict: GateVerdict): StopOutcome => ({ kind: 'answer', answer: answerFor(request, withNotes(verdict, watch.notes)) });

  const held = await heldSet(workspace, { env, ...(input.prd ? { named: input.prd } : {}) });
  const extra = input.prd ? path.resolve(workspace, input.prd) : undefined;
  const counter = watch.counter;
  const maxBlocks = input.maxBlocks;
  const before = await blocksSoFar(counter, request.sessionKey, request.stopHookActive, maxBlocks, now, warn);
  watch.before = before;
  const limitReached = before >= maxBlocks;
  // The agent said it cannot finish and needs a person: this stop is let through once, as BLOCKED, never as done.
  const blockedBy = await takeAgentBlocked(workspace, { now, env }).catch(() => undefined);
  const log = new StopLog(request, { before, maxBlocks, limitReached, blockedBy, refused: refusal !== undefined });
  const writeBacks: (() => Promise<boolean>)[] = [];
  // Answer before the host gives up: a total budget below its deadline bounds every criterion.
  const deadlineSeconds = stopDeadlineSeconds(input.deadlineSeconds, adapter);
  const deadline = startDeadline(deadlineSeconds, input.signal);
  // A criterion ends a second before the budget, so one slow check is reported as its own FAIL.
  const criterionSeconds = Math.min(input.timeoutSeconds, Math.max(1, deadline.budgetSeconds - 1));
  // The checks run in a snapshot of the workspace, from a process that is not the gate's (frozen.ts).
  // A subagent's stop does not count changes meanwhile: other agents of the session may be working beside it.
  const frozen = await freezeHeld(workspace, held, {
    // Absent a start, now, to the end of this millisecond: a file system that dates writes finer
    // than a millisecond gives a write made just before the gate a change time after the whole ms.
    sinceMs: input.startedMs ?? now.getTime() + 1,
    log: warn,
    needed: held.kind !== 'none' || extra !== undefined,
    guard: !/subagent/i.test(request.event),
  });
  if (frozen?.note) watch.notes.push(frozen.note);
  // How the work was verified (in place, not in a snapshot; node_modules not guarded) goes into the LOG too.
  log.how = frozen?.note;
  // The PRD being verified when the budget runs out, and its criteria not yet finished, are what the answer names.
  const verify = async (file: string, write: boolean, approvedIgnores?: ApprovedIgnores, text?: string): Promise<VerifyPrdOutcome> => {
    watch.verifying = path.relative(workspace, file).split(path.sep).join('/');
    watch.pending = new Map();
    const outcome = await verifyPrdFile({
      ...(frozen ? { frozen: { root: frozen.root, ...(text !== undefined ? { text } : {}) } } : {}),
      file,
      workspace,
      commands: { yes: input.yes },
      checks: { timeoutSeconds: criterionSeconds, signal: deadline.signal, ...(frozen?.processes ? { processes: frozen.processes } : {}), ...(approvedIgnores ? { approvedIgnores } : {}) },
      progress: {
        onStart: (criteria) => (watch.pending = new Map(criteria.map((c) => [c.id, c]))),
        onResult: (_done, _total, id) => watch.pending.delete(id),
      },
      ...(input.noLog || !write ? {} : { write: { finish: (t: string) => log.finish(t), later: frozen !== undefined, by: (set: VerifySetResult) => log.entry(set) } }),
      // The answer says nothing of the store: the report is left for its next writer (src/store/pending.ts).
      report: { store: input.store, later: true },
      // Standard output belongs to the host's answer; what verify would warn about goes to stderr.
      warn,
    });
    if (outcome.kind === 'verified' && outcome.writeBack) writeBacks.push(outcome.writeBack);
    else if (outcome.kind === 'verified' && outcome.written) await frozen?.ownWrite(file);
    return outcome;
  };
  const checked = await checkHeld(workspace, held, { verify, now, ...(extra ? { extra } : {}), ...(frozen ? { root: frozen.root } : {}) }).finally(() => deadline.dispose());
  const moved = await frozen?.changes().catch(() => [] as string[]).finally(() => frozen.dispose());
  // Known only once every check has run and the live workspace was compared with the copy: the
  // LOG entries are written after that, so a LOG never says "let the stop through" for a stop
  // the answer blocks.
  log.changedMeanwhile = (moved?.length ?? 0) > 0;
  for (const writeBack of writeBacks) await writeBack().catch((error: Error) => warn(`warning: the LOG entry was not written: ${error.message}`));
  const record = (verdict: GateVerdict) => recordVerdict(counter, request.sessionKey, verdict.kind === 'block' ? before + 1 : 0, maxBlocks, now).catch((error: Error) => warn(`warning: ${counter} not written: ${error.message}`));
  // For the dashboard: the verdict left for the store's next writer, unless there is no store.
  const outcome = (verdict: 'blocked' | 'released' | 'passed', checks: Parameters<typeof leaveGateOutcome>[0]['checks'], timedOut = false) => {
    if (input.store !== false) leaveGateOutcome({ workspace, ...(typeof input.store === 'string' ? { store: input.store } : {}), host: request.host, event: request.event, session: sessionMark(request.sessionKey), verdict, before, checks, ...(timedOut ? { timedOut } : {}), now }, warn);
  };
  if (deadline.expired()) {
    const hostName = HOST_NAMES[request.host] ?? request.host;
    const late = timedOutVerdict(watch.verifying, hostName, deadlineSeconds, deadline.budgetSeconds, criterionSeconds, unfinishedOf(watch));
    const timedOut = limitReached ? { kind: 'allow' as const, note: `${late.summary}\nThe agent was kept working ${before} times in a row (--max-blocks ${maxBlocks}) and may stop now, unverified.` } : late;
    outcome(timedOut.kind === 'block' ? 'blocked' : 'released', [], true);
    await record(timedOut);
    // Let through unverified: the person is told, as of any release with criteria unmet.
    const unverified = { prd: watch.verifying, summary: late.summary, ids: unfinishedOf(watch).map((u) => u.id) };
    const settled: StopSettled | undefined = timedOut.kind === 'allow' ? { checks: [], heldBy: 'none', verdict: timedOut, host: request.host, agentBlocked: false, workspace, env, unverified } : undefined;
    return { ...answer(timedOut), ...(settled ? { settled } : {}) };
  }
  // Nothing was ever locked or baselined, and there is no PRD: let it stop, and say why once.
  const nothing: GateDecision = { kind: 'allow', note: `Ideal State: no open PRD with criteria in ${workspace} and nothing locked; nothing to verify.` };
  if (checked.kind === 'nothing' && !refusal) return answer(nothing);

  const judged = checked.kind === 'nothing' ? nothing : withWorkspaceChanges(gateVerdict(checked.checks, { before, maxBlocks, heldBy: checked.heldBy }), moved ?? [], { before, maxBlocks });
  const verdict = judged.kind === 'block' ? (blockedBy ? { kind: 'allow' as const, note: agentBlockedNote(blockedBy, judged.summary) } : { ...judged, reason: `${judged.reason}\n${honestExit(input.selfCommand, workspace)}` }) : judged;
  // The agent's own "I need a person" stays its way out; a refused state folder blocks every other let-through.
  const decided = withStateRefusal(verdict, blockedBy ? undefined : refusal, { before, maxBlocks });
  // Met (judged as if no block came before) or let go with criteria unmet.
  const unmet = checked.kind === 'nothing' || withWorkspaceChanges(gateVerdict(checked.checks, { before: 0, maxBlocks: 1, heldBy: checked.heldBy }), moved ?? [], { before: 0, maxBlocks: 1 }).kind === 'block';
  outcome(decided.kind === 'block' ? 'blocked' : unmet ? 'released' : 'passed', checked.kind === 'nothing' ? [] : checked.checks);
  await record(decided);
  const settled: StopSettled | undefined = checked.kind === 'nothing' ? undefined : { checks: checked.checks, heldBy: checked.heldBy, verdict: decided, host: request.host, agentBlocked: blockedBy !== undefined, workspace, env };
  return { ...answer(decided), ...(settled ? { settled } : {}) };
}

/**
 * The PRD's LOG entry for this stop, one per session (its latest verdict replaces the session's
 * earlier ones; the store keeps them all). Its words depend on what is known only after the
 * checks: whether the workspace changed meanwhile, and whether the set failed while the agent
 * had said it is blocked.
 */
class StopLog {
  /** The live workspace changed while the gate verified its copy. */
  changedMeanwhile = false;
  /** How the work was verified, where it is not the usual snapshot (frozen.ts's note). */
  how: string | undefined;
  private markBlocked = false;
  private readonly mark: string;

  constructor(
    private readonly request: StopRequest,
    private readonly state: { before: number; maxBlocks: number; limitReached: boolean; blockedBy: { reason: string } | undefined; refused: boolean },
  ) {
    this.mark = sessionMark(request.sessionKey);
  }

  /** What the answer does when the workspace changed meanwhile (withWorkspaceChanges, then the honest exit's let-through). */
  private changedBlocks(): boolean {
    return this.changedMeanwhile && !this.state.limitReached && this.state.blockedBy === undefined;
  }

  /** A refused state folder variable blocks what would have passed (state-refused.ts). */
  private refusedBlocks(): boolean {
    return this.state.refused && !this.state.limitReached && this.state.blockedBy === undefined;
  }

  private verdictWord(passed: boolean): string {
    const { before, maxBlocks, limitReached, blockedBy } = this.state;
    if (this.changedBlocks()) return `blocked the stop (${before + 1} of ${maxBlocks}): the workspace changed while the gate verified it`;
    if (this.refusedBlocks() && passed) return `blocked the stop (${before + 1} of ${maxBlocks}): a state folder variable was refused, so the person's lock was not read`;
    if (passed) return 'let the stop through';
    if (blockedBy) return `let the stop through as BLOCKED: the agent said it needs a person ("${blockedBy.reason.slice(0, 200)}")`;
    if (limitReached) return `let the stop through after ${before} blocks (--max-blocks ${maxBlocks})`;
    return `blocked the stop (${before + 1} of ${maxBlocks})`;
  }

  /** Who verified, in the LOG: the host, its event, the session, the verdict and what the host does with it. */
  entry(set: VerifySetResult): string {
    this.markBlocked = !set.passed && this.state.blockedBy !== undefined;
    const letGo = this.state.limitReached || this.state.blockedBy !== undefined;
    const r = this.request;
    const how = this.how ? ` (${this.how.split('\n').map((l) => l.replace(/^Ideal State: /, '').replace(/\.$/, '')).join('; ')})` : '';
    return `ideal-state gate (${HOST_NAMES[r.host]} ${r.event}, ${this.mark}), which ${this.verdictWord(set.passed)}; ${hostWill(r, (set.passed || letGo) && !this.changedBlocks() && !this.refusedBlocks() ? 'allow' : 'block')}${how}`;
  }

  /** The written PRD, keeping only this session's latest entry (and BLOCKED status when the agent said so). */
  finish(text: string): string {
    const kept = keepLastSessionEntry(text, this.mark);
    return this.markBlocked ? withBlockedStatus(kept, this.state.blockedBy?.reason) : kept;
  }
}

/**
 * The person spoke: the criteria as they are now are the session's baseline. The host reads a
 * prompt hook's stdout as context for the model, so nothing is printed there.
 */
async function promptBaseline(workspace: string, input: StopInput, now: Date, warn: (s: string) => void): Promise<void> {
  try {
    const recorded = await recordBaseline(workspace, { now, env: input.env, ...(input.prd ? { named: input.prd } : {}), ...promptOf(input.stdin) });
    for (const r of recorded?.refused ?? []) warn(`Ideal State: ${r.path} is not in the session baseline: ${r.message}`);
  } catch (error) {
    warn(`Ideal State: the session baseline was not recorded: ${(error as Error).message}`);
  }
}

/**
 * The way out the block names: an agent that cannot make the criteria pass says so instead of
 * weakening them, with the exact command (this gate's own Node and command line: `ideal-state`
 * may not be on the agent's PATH).
 */
function honestExit(selfCommand: string, workspace: string): string {
  return `If they cannot be made to pass without weakening a check, do not weaken it: say so and stop, and the person is told it is not done: \`${selfCommand} gate blocked --workspace ${shellWord(workspace)} --reason "what is in the way"\` (or the MCP tool ideal-state_blocked).`;
}

/**
 * The person's words, where the host's prompt hook sends them (Claude Code, Codex, Qwen Code
 * and Gemini CLI as `prompt`; Copilot CLI's userPromptSubmitted too): they say which PRD the
 * session is about. Bounded: only ids are looked for in it.
 */
function promptOf(stdin: string): { prompt?: string } {
  try {
    const value: unknown = JSON.parse(stdin);
    const prompt = typeof value === 'object' && value !== null ? (value as Record<string, unknown>).prompt : undefined;
    return typeof prompt === 'string' ? { prompt: prompt.slice(0, 20_000) } : {};
  } catch {
    return {};
  }
}

/** Events that mean the person just spoke (Claude Code and VS Code: UserPromptSubmit, SessionStart; Cline: UserPromptSubmit). */
const PROMPT_EVENTS = new Set(['UserPromptSubmit', 'SessionStart']);
