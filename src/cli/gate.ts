import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { notPassing, verifyAnswer, type CriterionOutcome, type VerifyAnswer } from '../app/done-gate';
import { formatDiagnostic } from '../prd';
import type { VerifySetResult } from '../verify/types';
import { VERIFY_COMMANDS_FILE } from '../verify/verify-commands-file';
import { answerFor, GATE_HOSTS, HOST_NAMES, readStopPayload, type GateHost, type GateVerdict, type HostAnswer, type StopRequest } from './gate-hosts';
import { GATE_INSTALL_USAGE, gateInstallCommand } from './gate-install';
import { criteriaPrds, workspaceOf } from '../app/gate/prds';
import { blocksSoFar, gateStateFile, recordVerdict } from '../app/gate/block-counter';
import type { VerifyIo } from './verify';
import { verifyPrdFile, type VerifyPrdOutcome } from './verify-prd';

export const GATE_USAGE = `Usage: ideal-state gate [options]          (run by an agent host's stop hook)
       ideal-state gate install <host> [--yes] [--command CMD] [--workspace DIR]

Reads the stop hook payload an agent host sends on stdin, verifies the workspace's PRD and
answers in that host's format: the agent keeps working, told which CRITICAL criteria fail
and what each needs, or it may stop when every CRITICAL criterion passes.
Hosts: ${GATE_HOSTS.join(', ')}.

Options:
  --host HOST        the host that runs the hook (default: told by the payload's shape)
  --prd FILE         the PRD to hold the agent to, relative to the workspace (default: the
                     newest in the PRD folder, .ideal-state/prds or idealState.prd.folder)
  --workspace DIR    the workspace (default: the payload's cwd, else the current directory)
  --max-blocks N     stops kept from happening in a row before the agent may stop anyway,
                     with a warning (default 3); counted per session beside the criteria lock
  --timeout SECONDS  per criterion (default 120)
  --yes              run every PRD command (default: only those ${VERIFY_COMMANDS_FILE} allows)
  --no-log           write nothing into the PRD (default: outcomes and a LOG entry per verdict)
  --store FILE       the store for the verification report; --no-store for none

A host that says the agent is continuing because of a stop hook (stop_hook_active) counts
toward --max-blocks; one that says it is not (the user spoke since) starts a new count.
`;

export interface GateIo extends VerifyIo {
  /** The hook payload; absent: read from standard input. */
  readStdin?: () => Promise<string>;
}

export async function gateCommand(argv: string[], io: GateIo): Promise<number> {
  if (argv[0] === 'install') return gateInstallCommand(argv.slice(1), io);
  let values;
  let positionals;
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        host: { type: 'string' },
        prd: { type: 'string' },
        workspace: { type: 'string' },
        'max-blocks': { type: 'string' },
        timeout: { type: 'string' },
        yes: { type: 'boolean', default: false },
        'no-log': { type: 'boolean', default: false },
        store: { type: 'string' },
        'no-store': { type: 'boolean', default: false },
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

  // Kiro's shell action sends nothing; waiting for its stdin would hang the hook.
  const stdin = host === 'kiro' ? '' : await (io.readStdin ?? readStdin)();
  const payload = readStopPayload(host, stdin);
  if (!payload.ok) {
    io.err(`ideal-state gate: ${payload.message}`);
    return 2;
  }
  const request = payload.request;
  const workspace = values.workspace ? path.resolve(values.workspace) : await workspaceOf(request.cwd ?? process.cwd());
  const emit = (answer: HostAnswer) => {
    if (answer.stdout !== undefined) io.out(answer.stdout);
    if (answer.stderr !== undefined) io.err(answer.stderr);
    return answer.exitCode;
  };

  let file: string;
  if (values.prd) file = path.resolve(workspace, values.prd);
  else {
    const prds = await criteriaPrds(workspace);
    // Nothing to hold the agent to: let it stop, and say why once.
    if (prds.length === 0) return emit(answerFor(request, { kind: 'allow', note: `Ideal State: no PRD in ${workspace}; nothing to verify.` }));
    file = prds[0]!.file;
  }
  const shown = displayPath(workspace, file);
  const now = new Date();
  const counter = await gateStateFile(workspace);
  const before = await blocksSoFar(counter, request.sessionKey, request.stopHookActive, maxBlocks, now, io.err);
  const limitReached = before >= maxBlocks;
  const verdictWord = (passed: boolean) => (passed ? 'let the stop through' : limitReached ? `let the stop through after ${before} blocks (--max-blocks ${maxBlocks})` : `blocked the stop (${before + 1} of ${maxBlocks})`);

  const result = await verifyPrdFile({
    file,
    workspace,
    timeoutSeconds,
    yes: values.yes,
    noCommands: false,
    ...(io.signal ? { signal: io.signal } : {}),
    ...(values['no-log'] ? {} : { write: { by: (set: VerifySetResult) => `ideal-state gate (${HOST_NAMES[request.host]} ${request.event}), which ${verdictWord(set.passed)}` } }),
    store: values['no-store'] ? false : values.store,
    // stdout belongs to the host's answer; what verify would warn about goes to stderr.
    warn: io.err,
  });

  const verdict = gateVerdict(result, { request, file, shown, before, maxBlocks });
  await recordVerdict(counter, request.sessionKey, verdict.kind === 'block' ? before + 1 : 0, maxBlocks, now).catch((error: Error) => io.err(`warning: ${counter} not written: ${error.message}`));
  return emit(answerFor(request, verdict));
}

interface VerdictContext {
  request: StopRequest;
  /** The PRD as given to verify (its messages name it so). */
  file: string;
  shown: string;
  before: number;
  maxBlocks: number;
}

/**
 * Blocks while a CRITICAL criterion does not pass (and while the PRD cannot be verified at
 * all: a broken PRD is not a done one), until the limit of blocks in a row; then lets the
 * agent stop and warns the user that it stopped with the criteria unmet.
 */
export function gateVerdict(result: VerifyPrdOutcome, context: VerdictContext): GateVerdict {
  const { shown, before, maxBlocks } = context;
  if (result.kind === 'cancelled') return { kind: 'allow', note: `Ideal State: verification of ${shown} was cancelled; not verified.` };
  let reason: string;
  let summary: string;
  if (result.kind === 'verified') {
    // The same answer ideal-state_verify gives an agent, told as a stop hook's reason.
    const answer = verifyAnswer(shown, result.prd, result.set);
    if (answer.allCriticalPass) return { kind: 'allow', ...(result.set.counts.PASS < result.set.results.length ? { note: `Ideal State: ${shown}: ${result.set.summary}.` } : {}) };
    ({ reason, summary } = failingReason(answer));
  } else if (result.kind === 'bad-input') {
    summary = `Ideal State: ${result.summary.split(context.file).join(shown)}`;
    reason = [summary, ...result.problems.map((d) => `- ${formatDiagnostic(shown, d)}`), 'Fix the PRD, then finish.'].join('\n');
  } else {
    summary = `Ideal State: ${shown} cannot be verified: ${result.message}`;
    reason = summary;
  }
  if (before >= maxBlocks) return { kind: 'allow', note: `${summary}\nThe agent was kept working ${before} time${before === 1 ? '' : 's'} in a row (--max-blocks ${maxBlocks}) and may stop now, with this not done.` };
  return { kind: 'block', summary, reason: `${reason}\n(Ideal State stop gate, block ${before + 1} of ${maxBlocks}.)` };
}

function failingReason(answer: VerifyAnswer): { reason: string; summary: string } {
  const shown = answer.prd;
  const { critical, others } = notPassing(answer);
  const line = (r: CriterionOutcome) => {
    const evidence = (r.evidence.split('\n')[0] ?? '').slice(0, 200);
    return `- ${r.id} ${r.outcome}${r.failureLabel ? ` [${r.failureLabel}]` : ''}: ${evidence}${r.repairTarget ? `\n  needs: ${r.repairTarget}` : ''}`;
  };
  const summary = `Ideal State: not done. ${critical.length} CRITICAL criteri${critical.length === 1 ? 'on' : 'a'} of ${shown} ${critical.length === 1 ? 'does' : 'do'} not pass: ${critical.map((r) => r.id).join(', ')}.`;
  const out = [summary, ...critical.map(line)];
  if (others.length > 0) out.push('Also not passing (not CRITICAL):', ...others.map(line));
  if (answer.skippedCommands.length > 0) out.push(`Commands not run, so their criteria are UNKNOWN (the user allows them in ${VERIFY_COMMANDS_FILE}):`, ...answer.skippedCommands.map((c) => `- ${c.command}`));
  out.push(`Make these pass, then finish; \`ideal-state verify ${shown}\` shows the evidence.`);
  return { reason: out.join('\n'), summary };
}

function displayPath(workspace: string, file: string): string {
  const relative = path.relative(workspace, file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative.split(path.sep).join('/');
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
