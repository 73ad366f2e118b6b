import { runHookCommand, type HookRun } from '../hook-command';

/**
 * The dry stop: the installed command line, run once the way the host runs it (through a shell,
 * in the workspace, with the environment the host would give it) with a payload in the host's
 * shape and `--no-log --no-store`, so nothing is written; its answer read the way the host reads it.
 */

/** A stop payload in each host's shape, as the real binaries sent them (test/hosts). */
export function samplePayload(host: string, cwd: string): string {
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

/** The host's own bound on a hook (gate install's timeout, 600 s), and a little more: the doctor never waits for ever. */
const DRY_STOP_TIMEOUT_MS = 610_000;

export function runDryStop(command: string, stdin: string, cwd: string, env: NodeJS.ProcessEnv): Promise<HookRun> {
  return runHookCommand(`${command} --no-log --no-store`, stdin, { cwd, env, timeoutMs: DRY_STOP_TIMEOUT_MS });
}
