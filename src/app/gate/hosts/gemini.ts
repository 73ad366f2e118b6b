import { z } from 'zod';
import { claudeStyleAnswer, cwdOf, str, type HostAdapter } from './types';

/**
 * Gemini CLI. No Stop event: `AfterAgent` fires when the agent's turn ends (bundle of
 * @google/gemini-cli 0.61.0, packages/core/src/core/client.ts `fireAfterAgentHookSafe`). Input
 * (`createBaseInput` + `fireAfterAgentEvent`): session_id, transcript_path, cwd,
 * hook_event_name "AfterAgent", timestamp, prompt, prompt_response, stop_hook_active. A
 * `decision` of "block" (or "deny") sends `reason` to the model as the next message;
 * `systemMessage` is shown to the user. Hooks live in .gemini/settings.json as matcher groups,
 * `timeout` in milliseconds (DEFAULT_HOOK_TIMEOUT = 60000), read only in a trusted folder.
 * `stop_hook_active` is false again after a tool-using turn, so the block count is kept by
 * session and the flag is not trusted. Proven by test/hosts (Gemini CLI 0.61.0).
 */
const payload = () => z.looseObject({
  session_id: z.string().optional(),
  cwd: z.string().optional(),
  hook_event_name: z.string(),
  prompt_response: z.string().optional(),
  stop_hook_active: z.boolean().optional(),
});

export const gemini: HostAdapter = {
  id: 'gemini',
  name: 'Gemini CLI',
  payload,
  recognise: (p) => p.hook_event_name === 'AfterAgent' || p.hook_event_name === 'BeforeAgent',
  // stop_hook_active is deliberately left out: Gemini resets it after any tool-using turn.
  request: (p) => ({ host: 'gemini', event: str(p, 'hook_event_name') ?? 'AfterAgent', sessionKey: `gemini:${str(p, 'session_id') ?? 'no-session'}`, ...cwdOf(str(p, 'cwd')) }),
  answer: (_request, verdict) => claudeStyleAnswer(verdict),
  hostWill: (kind) => (kind === 'block' ? 'Gemini CLI sends the agent back with the reason' : 'Gemini CLI lets the agent stop and shows the note to the user'),
  install: { kind: 'matcher-groups', file: '.gemini/settings.json', events: ['AfterAgent'] },
  timeoutUnit: 'milliseconds',
  defaultDeadlineSeconds: 60,
  warningChannel: 'systemMessage, shown as "Hook system message: …" (on stderr with -p)',
  promptSubmitEvent: 'BeforeAgent',
  trustStep: 'Gemini CLI reads project hooks only in a trusted folder: answer "Trust folder" when it asks (or add the folder in ~/.gemini/trustedFolders.json); it then asks once to trust the new hook.',
  configFolder: '.gemini',
  // https://github.com/google-gemini/gemini-cli/blob/main/docs/tools/mcp-server.md: settings.json `mcpServers`.
  mcp: { file: '.gemini/settings.json', key: 'mcpServers', entry: ([command, ...args]) => ({ command, args: [...args, 'mcp'] }) },
};
