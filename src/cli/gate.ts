import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { startWatchdog, watchdogVerdict, withNotes, type WatchState } from './gate-watchdog';
import { recordVerdict } from '../app/gate/block-counter';
import { gateStartMs } from '../app/gate/gate-start';
import { shellWord } from '../app/gate/held';
import { gateStop, stopDeadlineSeconds } from '../app/gate/stop';
import { gateAnswered } from './shared/notify-sources';
import { redactEvidence } from '../verify/secret-env';
import { VERIFY_COMMANDS_FILE } from '../verify/verify-commands-file';
import { answerFor, GATE_HOSTS, hostAdapter, type GateHost, type HostAnswer } from '../app/gate/hosts';
import { gateDoctorCommand } from './gate-doctor';
import { gateBlockedCommand } from './gate-blocked';
import { GATE_INSTALL_USAGE, gateInstallCommand } from './gate-install';
import type { VerifyIo } from './verify';

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
  const deadlineOf = (adapter: ReturnType<typeof hostAdapter>) => stopDeadlineSeconds(values.deadline === undefined ? undefined : Number(values.deadline), adapter);
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
    // Kiro's shell action sends nothing; waiting for its stdin would hang the hook.
    const stdin = host === 'kiro' ? '' : await (io.readStdin ?? readStdin)();
    const stop = await gateStop(
      {
        stdin,
        ...(host ? { host } : {}),
        prompt: values.prompt,
        ...(values.prd ? { prd: values.prd } : {}),
        ...(values.workspace ? { workspace: values.workspace } : {}),
        userLevel: values['user-level'],
        maxBlocks,
        timeoutSeconds,
        ...(values.deadline !== undefined ? { deadlineSeconds: Number(values.deadline) } : {}),
        yes: values.yes,
        noLog: values['no-log'],
        store: values['no-store'] ? false : values.store,
        env: io.env ?? process.env,
        processCwd: process.cwd(),
        ...(io.startedMs !== undefined ? { startedMs: io.startedMs } : io.readStdin ? {} : { startedMs: gateStartMs() }),
        selfCommand: process.argv[1] ? `${shellWord(process.execPath)} ${shellWord(path.resolve(process.argv[1]))}` : 'ideal-state',
        ...(io.signal ? { signal: io.signal } : {}),
      },
      { warn: io.err, watch, rearm: (adapter) => watchdog.rearm(deadlineOf(adapter)) },
    );
    if (stop.kind === 'exit') return stop.code;
    const code = emit(stop.answer);
    // Told once the host has its answer, from a process of their own: never a delay to the stop.
    if (stop.settled) await gateAnswered(stop.settled.checks, stop.settled.heldBy, stop.settled.verdict, stop.settled);
    return code;
  } finally {
    watchdog.answered();
  }
}

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
