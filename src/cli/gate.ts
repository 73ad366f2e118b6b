import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { startDeadline, timedOutVerdict } from '../app/gate/deadline';
import { stateFolderRefusals } from '../app/gate/state-folder';
import { dropLoaderVariables, startWatchdog, unfinishedOf, watchdogVerdict, withNotes, type WatchState } from './gate-watchdog';
import { keepLastSessionEntry, sessionMark } from '../app/gate/session-log';
import { blocksSoFar, gateStateFile, recordVerdict } from '../app/gate/block-counter';
import { checkHeld } from '../app/gate/check';
import { freezeHeld } from '../app/gate/freeze-held';
import { gateStartMs } from '../app/gate/gate-start';
import { gateWorkspace, heldSet, recordBaseline } from '../app/gate/held';
import { stopIsElsewhere } from '../app/gate/hosts/project';
import { gateVerdict, withWorkspaceChanges } from '../app/gate/verdict';
import { redactEvidence } from '../verify/secret-env';
import { gateAnswered } from './notify-sources';
import type { ApprovedIgnores, VerifySetResult } from '../verify/types';
import { VERIFY_COMMANDS_FILE } from '../verify/verify-commands-file';
import { answerFor, GATE_HOSTS, HOST_NAMES, hostAdapter, hostWill, readStopPayload, type GateHost, type HostAnswer } from './gate-hosts';
import { gateDoctorCommand } from './gate-doctor';
import { gateBlockedCommand } from './gate-blocked';
import { agentBlockedNote, takeAgentBlocked, withBlockedStatus } from '../app/gate/agent-blocked';
import { shellWord } from '../app/gate/held';
import { GATE_INSTALL_USAGE, gateInstallCommand } from './gate-install';
import type { VerifyIo } from './verify';
import { verifyPrdFile } from './verify-prd';

export const GATE_USAGE = `Usage: ideal-state gate [options]          (run by an agent host's stop hook)
       ideal-state gate install <host>|--detect [--yes] [--command CMD] [--workspace DIR]
       ideal-state gate doctor [--workspace DIR]   (each host's effective hook settings, a dry stop
                                  through them, and the ways around the gate)
       ideal-state gate blocked --reason TEXT [--tried TEXT] [--workspace DIR]
                                  (the agent cannot finish: its next stop is BLOCKED, not done)

Reads the stop hook payload an agent host sends on stdin, verifies the workspace's PRD and
answers in that host's format: the agent keeps working, told which CRITICAL criteria fail
and what each needs, or it may stop when every CRITICAL criterion passes.
Hosts: ${GATE_HOSTS.join(', ')}.

Options:
  --host HOST        the host that runs the hook (default: told by the payload's shape)
  --prd FILE         the PRD to hold the agent to where nothing is locked (where a person
                     locked PRDs, held as well), relative to the workspace. Default: every PRD
                     a person locked; where none is, the PRD of the person's session as when
                     the person last spoke (the one the prompt names, else the newest
                     unfinished one; idealState.gate.prd names it instead); else the newest
                     unfinished PRD in the PRD folder
  --workspace DIR    the workspace (default: the host's project folder variable, e.g.
                     CLAUDE_PROJECT_DIR, else the current directory; never the payload's cwd)
  --user-level       the hook lives in the user's or managed settings (gate install --scope):
                     a stop whose session is outside --workspace goes through untouched
  --prompt           the host's prompt-submit hook: record the session baseline (the
                     criteria as the person last saw them); the payload's UserPromptSubmit
                     or SessionStart event says the same
  --max-blocks N     stops kept from happening in a row before the agent may stop anyway,
                     with a warning (default 3); counted per session beside the criteria lock
  --timeout SECONDS  per criterion (default 120)
  --deadline SECONDS how long the host waits for the hook (written by gate install; default:
                     the host's own); the gate answers before it, blocking when unfinished
  --yes              run every PRD command (default: only those ${VERIFY_COMMANDS_FILE} allows)
  --no-log           write nothing into the PRD (default: outcomes and a LOG entry per verdict)
  --store FILE       the store for the verification report; --no-store for none

A host that says the agent is continuing because of a stop hook (stop_hook_active) counts
toward --max-blocks; one that says it is not (the user spoke since) starts a new count.
`;

export interface GateIo extends VerifyIo {
  /** The hook payload; absent: read from standard input. */
  readStdin?: () => Promise<string>;
  /** The host's environment (its project-folder variable); default: this process's. */
  env?: NodeJS.ProcessEnv;
  /** Ends the process (the watchdog's answer, or a process held open after the answer); default: process.exit where the gate reads the real stdin, else nothing. */
  exit?: (code?: number) => void;
  /** When the gate began (ms since the epoch); default: this process's start where it reads the real stdin, else now. */
  startedMs?: number;
}

export async function gateCommand(argv: string[], io: GateIo): Promise<number> {
  if (argv[0] === 'install') return gateInstallCommand(argv.slice(1), io);
  if (argv[0] === 'doctor') return gateDoctorCommand(argv.slice(1), io);
  if (argv[0] === 'blocked') return gateBlockedCommand(argv.slice(1), io);
  let values;
  let positionals;
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        host: { type: 'string' },
        prompt: { type: 'boolean', default: false },
        prd: { type: 'string' },
        workspace: { type: 'string' },
        'max-blocks': { type: 'string' },
        timeout: { type: 'string' },
        deadline: { type: 'string' },
        yes: { type: 'boolean', default: false },
        'no-log': { type: 'boolean', default: false },
        store: { type: 'string' },
        'no-store': { type: 'boolean', default: false },
        'user-level': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (error) {
    io.err(`ideal-state gate: ${(error as Error).message}\n\n${GATE_USAGE}`);
    return 2;
  }
  if (values.help) {
    io.out(`${GATE_USAGE}\n${GATE_INSTALL_USAGE}`);
    return 0;
  }
  if (positionals.length > 0) {
    io.err(`ideal-state gate: unknown argument "${positionals[0]}"\n\n${GATE_USAGE}`);
    return 2;
  }
  const host = values.host as GateHost | undefined;
  if (host !== undefined && !GATE_HOSTS.includes(host)) {
    io.err(`ideal-state gate: --host takes one of ${GATE_HOSTS.join(', ')}, not "${values.host}"`);
    return 2;
  }
  const maxBlocks = values['max-blocks'] === undefined ? 3 : Number(values['max-blocks']);
  if (!Number.isInteger(maxBlocks) || maxBlocks < 0) {
    io.err(`ideal-state gate: --max-blocks takes a whole number from 0, not "${values['max-blocks']}"`);
    return 2;
  }
  const timeoutSeconds = values.timeout === undefined ? 120 : Number(values.timeout);
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) {
    io.err(`ideal-state gate: --timeout takes a number of seconds above 0, not "${values.timeout}"`);
    return 2;
  }

  // The watchdog starts before anything is read: whatever hangs, the host gets a blocking answer before its timeout.
  const watch: WatchState = { before: 0, maxBlocks, verifying: '', pending: new Map(), notes: [], prompt: values.prompt };
  let answered = false;
  const emit = (answer: HostAnswer) => {
    if (answered) return answer.exitCode;
    answered = true;
    if (answer.stdout !== undefined) io.out(redactEvidence(answer.stdout).text);
    if (answer.stderr !== undefined) io.err(redactEvidence(answer.stderr).text);
    return answer.exitCode;
  };
  const deadlineOf = (adapter: ReturnType<typeof hostAdapter>) => (values.deadline !== undefined && Number(values.deadline) > 0 ? Number(values.deadline) : (adapter?.defaultDeadlineSeconds ?? 600));
  const watchdog = startWatchdog(
    deadlineOf(host ? hostAdapter(host) : undefined),
    (seconds) => {
      const verdict = watchdogVerdict(watch, seconds);
      if (answered) return { code: 0 };
      // A prompt hook's answer could block the person's own prompt: it says only on stderr that the baseline was not recorded.
      if (watch.prompt) {
        answered = true;
        io.err(`Ideal State: the session baseline was not recorded within ${Math.round(seconds)} s.`);
        return { code: 0 };
      }
      if (watch.request) {
        const after = watch.counter ? recordVerdict(watch.counter, watch.request.sessionKey, verdict.kind === 'block' ? watch.before + 1 : 0, maxBlocks, new Date()).catch(() => undefined) : undefined;
        return { code: emit(answerFor(watch.request, withNotes(verdict, watch.notes))), ...(after ? { after } : {}) };
      }
      // No payload yet, so no host format: exit 2 with the reason on stderr is a block to the hosts that read exit codes.
      answered = true;
      io.err(verdict.kind === 'block' ? verdict.reason : (verdict.note ?? ''));
      return { code: 2 };
    },
    io.exit ?? (io.readStdin ? undefined : (code?: number) => process.exit(code)),
    () => [watch.workspace, watch.counter ? path.dirname(watch.counter) : undefined].filter((f): f is string => f !== undefined),
  );
  try {
    return await gateStop(values, { host, maxBlocks, timeoutSeconds }, io, { emit, watch, rearm: (adapter) => watchdog.rearm(deadlineOf(adapter)), deadlineOf });
  } finally {
    watchdog.answered();
  }
}

interface GateOptions {
  host: GateHost | undefined;
  maxBlocks: number;
  timeoutSeconds: number;
}

interface GateRun {
  emit: (answer: HostAnswer) => number;
  watch: WatchState;
  rearm: (adapter: ReturnType<typeof hostAdapter>) => void;
  deadlineOf: (adapter: ReturnType<typeof hostAdapter>) => number;
}

type GateValues = { prompt: boolean; prd?: string; workspace?: string; yes: boolean; 'no-log': boolean; store?: string; 'no-store': boolean; 'user-level': boolean };

async function gateStop(values: GateValues, options: GateOptions, io: GateIo, run: GateRun): Promise<number> {
  const { host, maxBlocks, timeoutSeconds } = options;
  const { emit, watch } = run;
  // Kiro's shell action sends nothing; waiting for its stdin would hang the hook.
  const stdin = host === 'kiro' ? '' : await (io.readStdin ?? readStdin)();
  const payload = readStopPayload(host, stdin);
  if (!payload.ok) {
    io.err(`ideal-state gate: ${payload.message}`);
    return 2;
  }
  const request = payload.request;
  const adapter = hostAdapter(request.host);
  watch.request = request;
  run.rearm(adapter);
  const env = io.env ?? process.env;
  const workspace = await gateWorkspace({ ...(values.workspace ? { flag: values.workspace } : {}), host: request.host, env, processCwd: process.cwd() });
  // A gate in the user's (or managed) settings runs in every project (`gate install --scope`
  // writes --user-level): named to one workspace, it lets another project's stop through untouched.
  if (values['user-level'] && values.workspace && stopIsElsewhere(request, workspace, env, process.cwd())) return 0;
  watch.verifying = `the criteria of ${workspace}`;
  watch.workspace = workspace;
  watch.counter = await gateStateFile(workspace, env);
  const now = new Date();
  // What the agent could have injected and the gate ignored, said on stderr and in the answer.
  const loaders = dropLoaderVariables(env);
  watch.notes.push(...(await stateFolderRefusals(workspace, env)), ...loaders.notes);
  for (const n of [...watch.notes.filter((n) => !loaders.notes.includes(n)), ...loaders.stderr]) io.err(n);

  // The person spoke: the criteria as they are now are the session's baseline. The host reads
  // a prompt hook's stdout as context for the model, so nothing is printed there.
  if (values.prompt || PROMPT_EVENTS.has(request.event) || adapter?.promptSubmitEvent === request.event) {
    watch.prompt = true;
    try {
      const recorded = await recordBaseline(workspace, { now, env, ...(values.prd ? { named: values.prd } : {}), ...promptOf(stdin) });
      for (const r of recorded?.refused ?? []) io.err(`Ideal State: ${r.path} is not in the session baseline: ${r.message}`);
    } catch (error) {
      io.err(`Ideal State: the session baseline was not recorded: ${(error as Error).message}`);
    }
    return 0;
  }

  const held = await heldSet(workspace, { env, ...(values.prd ? { named: values.prd } : {}) });
  const extra = values.prd ? path.resolve(workspace, values.prd) : undefined;
  const counter = watch.counter;
  const before = await blocksSoFar(counter, request.sessionKey, request.stopHookActive, maxBlocks, now, io.err);
  watch.before = before;
  const limitReached = before >= maxBlocks;
  // The agent said it cannot finish and needs a person: this stop is let through once, as BLOCKED, never as done.
  const blockedBy = await takeAgentBlocked(workspace, { now, env }).catch(() => undefined);
  const letGo = limitReached || blockedBy !== undefined;
  const verdictWord = (passed: boolean) =>
    changedBlocks() ? `blocked the stop (${before + 1} of ${maxBlocks}): the workspace changed while the gate verified it` : passed ? 'let the stop through' : blockedBy ? `let the stop through as BLOCKED: the agent said it needs a person ("${blockedBy.reason.slice(0, 200)}")` : limitReached ? `let the stop through after ${before} blocks (--max-blocks ${maxBlocks})` : `blocked the stop (${before + 1} of ${maxBlocks})`;
  let markBlocked = false;
  // Known only once every check has run and the live workspace was compared with the copy: the
  // LOG entries are written after that, so a LOG never says "let the stop through" for a stop
  // the answer blocks.
  let changedMeanwhile = false;
  // What the answer then does (withWorkspaceChanges, then the honest exit's let-through).
  const changedBlocks = () => changedMeanwhile && !limitReached && blockedBy === undefined;
  const writeBacks: (() => Promise<boolean>)[] = [];
  // Answer before the host gives up: a total budget below its deadline bounds every criterion.
  const deadlineSeconds = run.deadlineOf(adapter);
  const deadline = startDeadline(deadlineSeconds, io.signal);
  // A criterion ends a second before the budget, so one slow check is reported as its own FAIL.
  const criterionSeconds = Math.min(timeoutSeconds, Math.max(1, deadline.budgetSeconds - 1));
  // One LOG entry per session: its latest verdict replaces the session's earlier ones (the store keeps them all).
  const mark = sessionMark(request.sessionKey);
  // The PRD being verified when the budget runs out, and its criteria not yet finished, are what the answer names.
  // The checks run in a snapshot of the workspace, from a process that is not the gate's (frozen.ts).
  // A subagent's stop does not count changes meanwhile: other agents of the session may be working beside it.
  const frozen = await freezeHeld(workspace, held, {
    sinceMs: io.startedMs ?? (io.readStdin ? now.getTime() : gateStartMs()),
    log: io.err,
    needed: held.kind !== 'none' || extra !== undefined,
    guard: !/subagent/i.test(request.event),
  });
  if (frozen?.note) watch.notes.push(frozen.note);
  const verify = async (file: string, write: boolean, approvedIgnores?: ApprovedIgnores, text?: string) => {
    watch.verifying = path.relative(workspace, file).split(path.sep).join('/');
    watch.pending = new Map();
    const outcome = await verifyPrdFile({
      ...(frozen ? { frozen: { root: frozen.root, ...(text !== undefined ? { text } : {}) }, ...(frozen.processes ? { processes: frozen.processes } : {}) } : {}),
      file,
      workspace,
      timeoutSeconds: criterionSeconds,
      yes: values.yes,
      noCommands: false,
      signal: deadline.signal,
      onStart: (criteria) => (watch.pending = new Map(criteria.map((c) => [c.id, c]))),
      onResult: (_done, _total, id) => watch.pending.delete(id),
      ...(values['no-log'] || !write
        ? {}
        : {
            write: {
              finish: (text: string) => (markBlocked ? withBlockedStatus(keepLastSessionEntry(text, mark), blockedBy?.reason) : keepLastSessionEntry(text, mark)),
              later: frozen !== undefined,
              by: (set: VerifySetResult) => {
                markBlocked = !set.passed && blockedBy !== undefined;
                return `ideal-state gate (${HOST_NAMES[request.host]} ${request.event}, ${mark}), which ${verdictWord(set.passed)}; ${hostWill(request, (set.passed || letGo) && !changedBlocks() ? 'allow' : 'block')}`;
              },
            },
          }),
      store: values['no-store'] ? false : values.store,
      ...(approvedIgnores ? { approvedIgnores } : {}),
      // The answer says nothing of the store: the report is left for its next writer (src/store/pending.ts).
      storeLater: true,
      // stdout belongs to the host's answer; what verify would warn about goes to stderr.
      warn: io.err,
    });
    if (outcome.kind === 'verified' && outcome.writeBack) writeBacks.push(outcome.writeBack);
    else if (outcome.kind === 'verified' && outcome.written) await frozen?.ownWrite(file);
    return outcome;
  };
  const checked = await checkHeld(workspace, held, { verify, now, ...(extra ? { extra } : {}), ...(frozen ? { root: frozen.root } : {}) })
    .finally(() => deadline.dispose());
  const moved = await frozen?.changes().catch(() => [] as string[]).finally(() => frozen.dispose());
  changedMeanwhile = (moved?.length ?? 0) > 0;
  for (const writeBack of writeBacks) await writeBack().catch((error: Error) => io.err(`warning: the LOG entry was not written: ${error.message}`));
  if (deadline.expired()) {
    const hostName = HOST_NAMES[request.host] ?? request.host;
    const late = timedOutVerdict(watch.verifying, hostName, deadlineSeconds, deadline.budgetSeconds, criterionSeconds, unfinishedOf(watch));
    const timedOut = limitReached ? { kind: 'allow' as const, note: `${late.summary}\nThe agent was kept working ${before} times in a row (--max-blocks ${maxBlocks}) and may stop now, unverified.` } : late;
    await recordVerdict(counter, request.sessionKey, timedOut.kind === 'block' ? before + 1 : 0, maxBlocks, now).catch((error: Error) => io.err(`warning: ${counter} not written: ${error.message}`));
    return emit(answerFor(request, withNotes(timedOut, watch.notes)));
  }
  // Nothing was ever locked or baselined, and there is no PRD: let it stop, and say why once.
  if (checked.kind === 'nothing') return emit(answerFor(request, withNotes({ kind: 'allow', note: `Ideal State: no open PRD with criteria in ${workspace} and nothing locked; nothing to verify.` }, watch.notes)));

  const judged = withWorkspaceChanges(gateVerdict(checked.checks, { before, maxBlocks, heldBy: checked.heldBy }), moved ?? [], { before, maxBlocks });
  const verdict = judged.kind === 'block' ? (blockedBy ? { kind: 'allow' as const, note: agentBlockedNote(blockedBy, judged.summary) } : { ...judged, reason: `${judged.reason}\n${honestExit(workspace)}` }) : judged;
  await recordVerdict(counter, request.sessionKey, verdict.kind === 'block' ? before + 1 : 0, maxBlocks, now).catch((error: Error) => io.err(`warning: ${counter} not written: ${error.message}`));
  const code = emit(answerFor(request, withNotes(verdict, watch.notes)));
  await gateAnswered(checked.checks, checked.heldBy, verdict, { host: request.host, agentBlocked: blockedBy !== undefined, workspace, env });
  return code;
}

/**
 * The way out the block names: an agent that cannot make the criteria pass says so instead of
 * weakening them, with the exact command (this gate's own Node and command line: `ideal-state`
 * may not be on the agent's PATH).
 */
function honestExit(workspace: string): string {
  const cli = process.argv[1] ? `${shellWord(process.execPath)} ${shellWord(path.resolve(process.argv[1]))}` : 'ideal-state';
  return `If they cannot be made to pass without weakening a check, do not weaken it: say so and stop, and the person is told it is not done: \`${cli} gate blocked --workspace ${shellWord(workspace)} --reason "what is in the way"\` (or the MCP tool ideal-state_blocked).`;
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

/** All of stdin, or what came within a few seconds: a host that leaves stdin open must not hang the hook. */
function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return Promise.resolve('');
  return new Promise((resolve) => {
    let text = '';
    const done = () => {
      clearTimeout(timer);
      // An open stdin would keep the process alive after the answer.
      process.stdin.destroy();
      resolve(text);
    };
    const timer = setTimeout(done, 5000);
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk: string) => (text += chunk));
    process.stdin.once('end', done);
    process.stdin.once('error', done);
  });
}
