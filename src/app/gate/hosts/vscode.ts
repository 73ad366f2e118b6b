import { z } from 'zod';
import { cwdOf, flag, str, type GateVerdict, type HostAdapter, type HostAnswer } from './types';

/**
 * VS Code agent mode. https://code.visualstudio.com/docs/agent-customization/hooks
 * ("common input fields"): timestamp, cwd, sessionId, hookEventName, transcript_path; Stop adds
 * stop_hook_active. Answer (hooks-reference "Stop output", "SubagentStop output"): Stop nests
 * the decision in hookSpecificOutput { hookEventName: "Stop", decision, reason }; SubagentStop
 * takes them top-level; systemMessage is a warning shown to the user. Workspace hooks live in
 * .github/hooks/*.json as a flat list per event, `timeout` in seconds.
 * Copilot CLI reads the same file but sends its own payload (no hookEventName) and reads only
 * the top-level decision: an answer to a payload without hookEventName carries both.
 */
const payload = () => z.looseObject({
  sessionId: z.string().optional(),
  hookEventName: z.string(),
  cwd: z.string().optional(),
  stop_hook_active: z.boolean().optional(),
});

export function vscodeAnswer(event: string | undefined, verdict: GateVerdict): HostAnswer {
  if (verdict.kind === 'block') {
    const top = { decision: 'block', reason: verdict.reason };
    if (event === 'SubagentStop') return { exitCode: 0, stdout: JSON.stringify(top) };
    const nested = { hookSpecificOutput: { hookEventName: 'Stop', decision: 'block', reason: verdict.reason } };
    return { exitCode: 0, stdout: JSON.stringify(event === undefined ? { ...top, ...nested } : nested) };
  }
  return verdict.note ? { exitCode: 0, stdout: JSON.stringify({ systemMessage: verdict.note }) } : { exitCode: 0 };
}

export const vscode: HostAdapter = {
  id: 'vscode',
  name: 'VS Code',
  payload,
  recognise: (p) => typeof p.hookEventName === 'string',
  request: (p) => {
    const stopHookActive = flag(p, 'stop_hook_active');
    return { host: 'vscode', event: str(p, 'hookEventName') ?? str(p, 'hook_event_name') ?? 'Stop', sessionKey: `vscode:${str(p, 'sessionId') ?? str(p, 'session_id') ?? 'no-session'}:${str(p, 'agent_id') ?? ''}`, ...cwdOf(str(p, 'cwd')), ...(stopHookActive !== undefined ? { stopHookActive } : {}) };
  },
  answer: (request, verdict) => vscodeAnswer(request.event, verdict),
  hostWill: (kind) => (kind === 'block' ? 'VS Code sends the agent back with the reason' : 'VS Code lets the agent stop and shows the note to the user'),
  install: { kind: 'flat', file: '.github/hooks/ideal-state.json', events: ['Stop', 'SubagentStop'] },
  timeoutUnit: 'seconds',
  defaultDeadlineSeconds: 30,
  warningChannel: 'systemMessage, shown in the chat',
  promptSubmitEvent: 'UserPromptSubmit',
  configFolder: '.vscode',
  // https://code.visualstudio.com/docs/copilot/customization/mcp-servers: .vscode/mcp.json `servers`.
  mcp: { file: '.vscode/mcp.json', key: 'servers', entry: ([command, ...args]) => ({ type: 'stdio', command, args: [...args, 'mcp'] }) },
};
