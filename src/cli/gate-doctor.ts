import { spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { HOST_ADAPTERS, type HostAdapter } from '../app/gate/hosts';
import { heldPrds, heldSet, type HeldSet } from '../app/gate/held';
import { LOCK_NAMES } from '../app/gate/lock';
import { lockHistoryLine } from '../app/gate/lock-events';
import { gateStateFolder } from '../app/gate/state-folder';
import type { VerifyIo } from './verify';

export const GATE_DOCTOR_USAGE = `Usage: ideal-state gate doctor [--workspace DIR]

For each host whose hook \`gate install\` wrote in the workspace, runs that exact command line
once with a payload in the host's shape (a dry stop: --no-log --no-store, nothing written) and
says whether the host would block its agent now, and why.
`;

const OURS = /\bideal-state\b.*\bgate\b|\bcli\.js\b.*\bgate\b/;

/** A stop payload in each host's shape, as the real binaries sent them (test/hosts). */
function samplePayload(host: string, cwd: string): string {
  const samples: Record<string, Record<string, unknown>> = {
    'claude-code': { session_id: 'doctor', hook_event_name: 'Stop', cwd, stop_hook_active: false },
    codex: { session_id: 'doctor', turn_id: 'doctor', hook_event_name: 'Stop', cwd, model: 'doctor', stop_hook_active: false },
    gemini: { session_id: 'doctor', hook_event_name: 'AfterAgent', cwd, prompt: '', prompt_response: '', stop_hook_active: false },
    qwen: { session_id: 'doctor', hook_event_name: 'Stop', cwd, stop_hook_active: false },
    augment: { conversation_id: 'doctor', hook_event_name: 'Stop', workspace_roots: [cwd], agent_stop_cause: 'end_turn' },
    vscode: { sessionId: 'doctor', hookEventName: 'Stop', cwd, stop_hook_active: false },
    copilot: { sessionId: 'doctor', cwd, timestamp: Date.now() },
    cursor: { conversation_id: 'doctor', generation_id: 'doctor', hook_event_name: 'stop', status: 'completed', loop_count: 0, workspace_roots: [cwd] },
    opencode: { hook_event_name: 'session.idle', session_id: 'doctor', cwd },
    kiro: {},
  };
  return host === 'kiro' ? '' : JSON.stringify(samples[host] ?? {});
}

/** The gate's command line as the host's file holds it, if installed. */
async function installedCommand(adapter: HostAdapter, workspace: string): Promise<string | undefined> {
  if (adapter.install.kind === 'none') return undefined;
  const text = await fs.readFile(path.join(workspace, ...adapter.install.file.split('/')), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const m = new RegExp(`"(?:command|bash)"\\s*:\\s*("(?:[^"\\\\]|\\\\.)*--host ${adapter.id}\\b(?:[^"\\\\]|\\\\.)*")`).exec(text) ?? new RegExp(`const COMMAND = ("(?:[^"\\\\]|\\\\.)*--host ${adapter.id}\\b(?:[^"\\\\]|\\\\.)*")`).exec(text);
  if (!m) return undefined;
  const command = JSON.parse(m[1]!) as string;
  return OURS.test(command) ? command : undefined;
}

/** Whether the host would keep its agent working, read from its answer the way the host reads it. */
export function wouldBlock(host: string, exitCode: number | null, stdout: string): { block: boolean; why: string } {
  if (host === 'kiro') return { block: exitCode !== 0, why: exitCode !== 0 ? 'exit code ≠ 0: Kiro gives stderr to the agent' : 'exit 0' };
  let answer: Record<string, unknown> = {};
  try {
    answer = stdout.trim() ? (JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>) : {};
  } catch {
    return { block: false, why: `the answer is not JSON (exit ${exitCode}): ${stdout.slice(0, 200)}` };
  }
  const nested = answer.hookSpecificOutput as Record<string, unknown> | undefined;
  const reason = (answer.reason ?? nested?.reason ?? answer.followup_message ?? answer.systemMessage ?? '') as string;
  const block = host === 'cursor' ? typeof answer.followup_message === 'string' : host === 'vscode' ? nested?.decision === 'block' : answer.decision === 'block';
  return { block, why: reason.split('\n')[0] ?? '' };
}

export async function gateDoctorCommand(argv: string[], io: VerifyIo): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: { workspace: { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } } }));
  } catch (error) {
    io.err(`ideal-state gate doctor: ${(error as Error).message}\n\n${GATE_DOCTOR_USAGE}`);
    return 2;
  }
  if (values.help) {
    io.out(GATE_DOCTOR_USAGE);
    return 0;
  }
  const workspace = path.resolve(values.workspace ?? process.cwd());
  io.out(heldLines(workspace, await heldSet(workspace)));
  io.out(await lockHistoryLine(await gateStateFolder(workspace), LOCK_NAMES));
  let found = 0;
  for (const adapter of HOST_ADAPTERS) {
    const command = await installedCommand(adapter, workspace);
    if (!command) continue;
    found++;
    const r = await runShell(`${command} --no-log --no-store`, samplePayload(adapter.id, workspace), workspace);
    const verdict = wouldBlock(adapter.id, r.code, r.stdout);
    io.out(`${adapter.name}: ${verdict.block ? 'would block' : 'would let the agent stop'} (${adapter.install.kind !== 'none' ? adapter.install.file : ''}: \`${command}\`)${verdict.why ? `\n  ${verdict.why}` : ''}${r.code !== 0 && adapter.id !== 'kiro' ? `\n  the hook exited ${r.code}: ${r.stderr.trim().split('\n')[0] ?? ''}` : ''}`);
  }
  for (const adapter of HOST_ADAPTERS) if (adapter.install.kind === 'none') io.out(`${adapter.name}: no stop gate possible (${adapter.install.why}).`);
  if (found === 0) {
    io.err(`ideal-state gate doctor: no host in ${workspace} runs the gate; \`ideal-state gate install <host>\` writes one`);
    return 1;
  }
  return 0;
}

/** What the gate holds an agent to here, and why: the first thing a person checks. */
function heldLines(workspace: string, held: HeldSet): string {
  if (held.kind === 'damaged') return `The gate holds: nothing it can read (${held.message}); every stop blocks until a person locks the criteria again.`;
  const prds = heldPrds(workspace, held);
  if (prds.length === 0) return 'The gate holds: nothing (no lock, no session baseline, no open PRD with criteria); an agent may stop.';
  return ['The gate holds:', ...prds.map((p) => `  ${p.path} (${p.why})`)].join('\n');
}

function runShell(command: string, stdin: string, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, { shell: true, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', (error) => resolve({ code: 127, stdout, stderr: error.message }));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}
