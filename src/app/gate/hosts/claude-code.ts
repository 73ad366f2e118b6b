import { z } from 'zod';
import { claudeStyleAnswer, cwdOf, flag, str, type HostAdapter } from './types';

/**
 * Claude Code. https://code.claude.com/docs/en/hooks ("Stop input", "SubagentStop input"):
 * session_id, transcript_path, cwd, permission_mode, hook_event_name ("Stop" | "SubagentStop"),
 * stop_hook_active, last_assistant_message; SubagentStop adds agent_id and agent_type.
 * Answer ("Stop/SubagentStop decision control", "Common JSON fields"): exit 0 with
 * `{"decision":"block","reason"}` keeps Claude working and tells it why; `systemMessage` is a
 * warning shown to the user. Hooks live in .claude/settings.json as matcher groups; `timeout`
 * is in seconds (default 600). Proven by test/hosts (Claude Code 2.1.332).
 */
const payload = () => z.looseObject({
  session_id: z.string().optional(),
  transcript_path: z.string().optional(),
  cwd: z.string().optional(),
  hook_event_name: z.string(),
  stop_hook_active: z.boolean().optional(),
  agent_id: z.string().optional(),
});

export const claudeCode: HostAdapter = {
  id: 'claude-code',
  name: 'Claude Code',
  payload,
  recognise: (p) => typeof p.hook_event_name === 'string' && !('turn_id' in p) && !('prompt_response' in p),
  request: (p) => {
    const stopHookActive = flag(p, 'stop_hook_active');
    return { host: 'claude-code', event: str(p, 'hook_event_name') ?? 'Stop', sessionKey: `claude-code:${str(p, 'session_id') ?? 'no-session'}:${str(p, 'agent_id') ?? ''}`, ...cwdOf(str(p, 'cwd')), ...(stopHookActive !== undefined ? { stopHookActive } : {}) };
  },
  answer: (_request, verdict) => claudeStyleAnswer(verdict),
  hostWill: (kind) => (kind === 'block' ? 'Claude Code sends the agent back with the reason' : 'Claude Code lets the agent stop and shows the note to the user'),
  install: { kind: 'matcher-groups', file: '.claude/settings.json', events: ['Stop', 'SubagentStop'] },
  timeoutUnit: 'seconds',
  defaultDeadlineSeconds: 600,
  warningChannel: 'systemMessage, shown in the session as "Stop says: …" (with -p, a `system` message of --output-format stream-json)',
  promptSubmitEvent: 'UserPromptSubmit',
  configFolder: '.claude',
  // https://code.claude.com/docs/en/mcp#project-scope: .mcp.json `mcpServers`.
  mcp: { file: '.mcp.json', key: 'mcpServers', entry: ([command, ...args]) => ({ command, args: [...args, 'mcp'] }) },
};
