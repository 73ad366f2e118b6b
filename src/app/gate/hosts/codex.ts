import { z } from 'zod';
import { claudeStyleAnswer, cwdOf, flag, str, type HostAdapter } from './types';

/**
 * Codex CLI. Its hooks take Claude Code's format in `.codex/hooks.json` (matcher groups under
 * `hooks.Stop`); the Stop input, from the JSON schema `stop.command.input` inside the 0.171.0
 * binary: session_id, turn_id, transcript_path, cwd, hook_event_name "Stop", model,
 * permission_mode, stop_hook_active, last_assistant_message. The output schema
 * `stop.command.output`: decision "block" with reason, continue, stopReason, systemMessage.
 * Project configuration, hooks.json included, is read only in a trusted project, and each new
 * hook must be trusted once (`codex` → /hooks), else it is skipped without a word. Proven by
 * test/hosts (Codex 0.171.0).
 */
const payload = () => z.looseObject({
  session_id: z.string().optional(),
  turn_id: z.string().optional(),
  cwd: z.string().optional(),
  hook_event_name: z.string(),
  model: z.string().optional(),
  stop_hook_active: z.boolean().optional(),
});

export const codex: HostAdapter = {
  id: 'codex',
  name: 'Codex',
  payload,
  recognise: (p) => typeof p.hook_event_name === 'string' && 'turn_id' in p,
  request: (p) => {
    const stopHookActive = flag(p, 'stop_hook_active');
    return { host: 'codex', event: str(p, 'hook_event_name') ?? 'Stop', sessionKey: `codex:${str(p, 'session_id') ?? 'no-session'}`, ...cwdOf(str(p, 'cwd')), ...(stopHookActive !== undefined ? { stopHookActive } : {}) };
  },
  answer: (_request, verdict) => claudeStyleAnswer(verdict),
  hostWill: (kind) => (kind === 'block' ? 'Codex sends the agent back with the reason' : 'Codex lets the agent stop and shows the note to the user'),
  install: { kind: 'matcher-groups', file: '.codex/hooks.json', events: ['Stop'] },
  timeoutUnit: 'seconds',
  defaultDeadlineSeconds: 600,
  warningChannel: 'systemMessage, shown in the Codex TUI as "↳ Hook · …" (`codex exec` prints only "hook: Stop Completed")',
  promptSubmitEvent: 'UserPromptSubmit',
  trustStep:
    'Codex runs a project hook only in a trusted project and only once the hook itself is trusted: open `codex` in this folder, accept "trust this folder" (or `codex exec --trust` once), then type /hooks and trust the Ideal State hook. Until then Codex skips it without a word.',
  configFolder: '.codex',
  // Codex reads MCP servers from config.toml (`[mcp_servers.NAME]`); the project one only when trusted.
  mcp: { file: '.codex/config.toml', key: 'mcp_servers', entry: ([command, ...args]) => ({ command, args: [...args, 'mcp'] }) },
};
