import * as path from 'node:path';
import { gateStartMs } from '../../app/gate/gate-start';
import { shellWord } from '../../app/gate/held';
import { GATE_HOSTS, hostAdapter, type GateHost, type HostAnswer } from '../../app/gate/hosts';
import { gateStop, stopDeadlineSeconds } from '../../app/gate/stop';
import { watchdogAnswer, type WatchState } from '../../app/gate/stop-watch';
import { redactEvidence } from '../../verify/secret-env';
import { defineCommand } from '../shared/command';
import type { CliIo } from '../shared/io';
import { gateAnswered } from '../shared/notify-sources';
import { GATE_INSTALL_USAGE, GATE_USAGE } from './usage';
import { startWatchdog } from './watchdog';

const GATE = defineCommand({
  name: 'ideal-state gate',
  usage: GATE_USAGE,
  help: `${GATE_USAGE}\n${GATE_INSTALL_USAGE}`,
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
  },
});

export interface GateIo extends CliIo {
  /** The hook payload; absent: read from standard input. */
  readStdin?: () => Promise<string>;
  /** The host's environment (its project-folder variable); default: this process's. */
  env?: NodeJS.ProcessEnv;
  /** Ends the process (the watchdog's answer, or a process held open after the answer); default: process.exit where the gate reads the real stdin, else nothing. */
  exit?: (code?: number) => void;
  /** When the gate began (ms since the epoch); default: this process's start where it reads the real stdin, else now. */
  startedMs?: number;
}

/**
 * `ideal-state gate`, run by an agent host's stop hook: reads the payload on standard input,
 * starts the watchdog, and prints the answer the stop (src/app/gate/stop.ts) gives.
 */
export async function gateCommand(argv: string[], io: GateIo): Promise<number> {
  const parsed = GATE.parse(argv, io);
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  if (positionals.length > 0) return GATE.usageError(io, `unknown argument "${positionals[0]}"`);
  const host = values.host as GateHost | undefined;
  if (host !== undefined && !GATE_HOSTS.includes(host)) return GATE.refuse(io, `--host takes one of ${GATE_HOSTS.join(', ')}, not "${values.host}"`);
  const maxBlocks = values['max-blocks'] === undefined ? 3 : Number(values['max-blocks']);
  if (!Number.isInteger(maxBlocks) || maxBlocks < 0) return GATE.refuse(io, `--max-blocks takes a whole number from 0, not "${values['max-blocks']}"`);
  const timeoutSeconds = values.timeout === undefined ? 120 : Number(values.timeout);
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) return GATE.refuse(io, `--timeout takes a number of seconds above 0, not "${values.timeout}"`);

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
      if (answered) return { code: 0 };
      const said = watchdogAnswer(watch, seconds, new Date());
      if (said.kind === 'host') return { code: emit(said.answer), ...(said.after ? { after: said.after } : {}) };
      answered = true;
      io.err(said.text);
      return { code: said.code };
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
