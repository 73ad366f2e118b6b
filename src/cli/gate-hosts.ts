/**
 * The agent hosts whose "I am done" `ideal-state gate` can stop, each in its own words: what
 * it sends on stdin when its agent wants to stop, and how it must be answered to keep the
 * agent working. Every rule below cites the host's documentation; the fixtures in
 * test/unit/fixtures/gate/ are the documented payloads.
 */

export const GATE_HOSTS = ['claude-code', 'vscode', 'kiro', 'cline'] as const;
export type GateHost = (typeof GATE_HOSTS)[number];

export const HOST_NAMES: Record<GateHost, string> = { 'claude-code': 'Claude Code', vscode: 'VS Code', kiro: 'Kiro', cline: 'Cline' };

/** A stop request, whatever host sent it. */
export interface StopRequest {
  host: GateHost;
  /** The host's event, e.g. `Stop`, `SubagentStop`, `TaskComplete`, `agentStop`. */
  event: string;
  /** Counts blocks per session; hosts without one share a key per workspace. */
  sessionKey: string;
  /** Where the agent works (absent: the current directory). */
  cwd?: string;
  /** The host says the agent is already continuing because a stop hook blocked (undefined: it never says). */
  stopHookActive?: boolean;
}

export type PayloadRead = { ok: true; request: StopRequest } | { ok: false; message: string };

/**
 * Reads the payload. `host` comes from `--host` (what `gate install` writes); without it the
 * payload's shape tells: Cline's camelCase `hookName`, VS Code's `hookEventName`, Claude
 * Code's `hook_event_name`; nothing at all is Kiro, whose shell action sends no stdin.
 */
export function readStopPayload(host: GateHost | undefined, stdin: string): PayloadRead {
  const text = stdin.trim();
  let payload: Record<string, unknown> = {};
  if (text !== '') {
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { ok: false, message: 'the hook payload on stdin is not a JSON object' };
      payload = parsed as Record<string, unknown>;
    } catch (error) {
      return { ok: false, message: `the hook payload on stdin is not JSON: ${(error as Error).message}` };
    }
  }
  const which = host ?? detectHost(payload);
  if (!which) return { ok: false, message: 'cannot tell which agent host sent this payload; pass --host claude-code|vscode|kiro|cline' };
  const str = (key: string) => (typeof payload[key] === 'string' && payload[key] !== '' ? (payload[key] as string) : undefined);
  const flag = typeof payload.stop_hook_active === 'boolean' ? payload.stop_hook_active : undefined;
  switch (which) {
    case 'claude-code': {
      // https://code.claude.com/docs/en/hooks ("Stop input", "SubagentStop input"): session_id,
      // transcript_path, cwd, permission_mode, hook_event_name ("Stop" | "SubagentStop"),
      // stop_hook_active, last_assistant_message; SubagentStop adds agent_id and agent_type.
      const event = str('hook_event_name') ?? 'Stop';
      return { ok: true, request: { host: which, event, sessionKey: `claude-code:${str('session_id') ?? 'no-session'}:${str('agent_id') ?? ''}`, ...cwdOf(str('cwd')), ...(flag !== undefined ? { stopHookActive: flag } : {}) } };
    }
    case 'vscode': {
      // https://code.visualstudio.com/docs/agent-customization/hooks#common-input-fields:
      // timestamp, cwd, sessionId, hookEventName, transcript_path; the Stop input adds
      // stop_hook_active (https://code.visualstudio.com/docs/agents/reference/hooks-reference#stop).
      const event = str('hookEventName') ?? str('hook_event_name') ?? 'Stop';
      return { ok: true, request: { host: which, event, sessionKey: `vscode:${str('sessionId') ?? str('session_id') ?? 'no-session'}:${str('agent_id') ?? ''}`, ...cwdOf(str('cwd')), ...(flag !== undefined ? { stopHookActive: flag } : {}) } };
    }
    case 'cline': {
      // https://docs.cline.bot/features/hooks/hook-reference#taskcomplete: clineVersion,
      // hookName "TaskComplete", timestamp, taskId, workspaceRoots, userId, taskComplete.
      const roots = Array.isArray(payload.workspaceRoots) ? payload.workspaceRoots.filter((r): r is string => typeof r === 'string') : [];
      return { ok: true, request: { host: which, event: str('hookName') ?? 'TaskComplete', sessionKey: `cline:${str('taskId') ?? 'no-task'}`, ...cwdOf(roots[0]) } };
    }
    case 'kiro':
      // https://kiro.dev/docs/hooks/actions: a Shell Command action on Agent Stop runs the
      // command; no payload is documented, so there is no session to count blocks in.
      return { ok: true, request: { host: which, event: 'agentStop', sessionKey: 'kiro:workspace' } };
  }
}

function detectHost(payload: Record<string, unknown>): GateHost | undefined {
  if (Object.keys(payload).length === 0) return 'kiro';
  if (typeof payload.hookName === 'string') return 'cline';
  if (typeof payload.hookEventName === 'string') return 'vscode';
  if (typeof payload.hook_event_name === 'string') return 'claude-code';
  return undefined;
}

function cwdOf(cwd: string | undefined): { cwd?: string } {
  return cwd ? { cwd } : {};
}

/** What the gate decided: keep the agent working (with why), or let it stop (with a note for the user, if any). */
export type GateVerdict = { kind: 'block'; reason: string; summary: string } | { kind: 'allow'; note?: string };

/** The answer as the host reads it. */
export interface HostAnswer {
  exitCode: number;
  stdout?: string;
  stderr?: string;
}

export function answerFor(request: StopRequest, verdict: GateVerdict): HostAnswer {
  switch (request.host) {
    case 'claude-code':
      // https://code.claude.com/docs/en/hooks ("Stop/SubagentStop decision control", "Common
      // JSON fields"): `"decision": "block"` with a `reason` keeps Claude working and tells it
      // why (exit 0, JSON on stdout); `systemMessage` is a warning shown to the user.
      if (verdict.kind === 'block') return { exitCode: 0, stdout: JSON.stringify({ decision: 'block', reason: verdict.reason }) };
      return verdict.note ? { exitCode: 0, stdout: JSON.stringify({ systemMessage: verdict.note }) } : { exitCode: 0 };
    case 'vscode':
      // https://code.visualstudio.com/docs/agents/reference/hooks-reference#stop-output: Stop
      // blocks through hookSpecificOutput { hookEventName: "Stop", decision, reason };
      // SubagentStop through top-level decision and reason (#subagentstop-output);
      // systemMessage is a warning shown to the user (#common-output-format).
      if (verdict.kind === 'block') {
        return request.event === 'SubagentStop'
          ? { exitCode: 0, stdout: JSON.stringify({ decision: 'block', reason: verdict.reason }) }
          : { exitCode: 0, stdout: JSON.stringify({ hookSpecificOutput: { hookEventName: 'Stop', decision: 'block', reason: verdict.reason } }) };
      }
      return verdict.note ? { exitCode: 0, stdout: JSON.stringify({ systemMessage: verdict.note }) } : { exitCode: 0 };
    case 'kiro':
      // https://kiro.dev/docs/hooks/actions: exit 0 adds stdout to the agent's context; any
      // other exit code sends stderr to the agent as the hook's error.
      if (verdict.kind === 'block') return { exitCode: 1, stderr: verdict.reason };
      return { exitCode: 0, stdout: verdict.note ?? 'Ideal State: every CRITICAL criterion passes.' };
    case 'cline':
      // https://docs.cline.bot/features/hooks/hook-reference#output-format: one JSON object,
      // last on stdout: `cancel: true` halts the task with `errorMessage` shown to the user,
      // and `contextModification` goes into the conversation for the next request.
      if (verdict.kind === 'block') return { exitCode: 0, stdout: JSON.stringify({ cancel: true, errorMessage: verdict.summary, contextModification: verdict.reason }) };
      return { exitCode: 0, stdout: JSON.stringify(verdict.note ? { cancel: false, contextModification: verdict.note } : { cancel: false }) };
  }
}
