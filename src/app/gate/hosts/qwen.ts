import { z } from 'zod';
import { claudeStyleAnswer, cwdOf, flag, str, type HostAdapter } from './types';

/**
 * Qwen Code. Claude Code's Stop hook in .qwen/settings.json (docs/features/hooks.md in
 * @qwen-code/qwen-code 0.24.4, "Stop", "SubagentStop"): the same input and `decision`/`reason`
 * output. The hook `timeout` was milliseconds up to 0.15 and is seconds since, but "a value of
 * 1000 or more is still read as milliseconds" (same page): so the gate writes milliseconds of
 * 1000 or more, which every version reads alike. Project hooks load only in a trusted folder.
 * `stop_hook_active` (0.24.4): false on the first check and after the user speaks, true while a
 * stop hook's block continues, tool calls included.
 */
const payload = () => z.looseObject({
  session_id: z.string().optional(),
  cwd: z.string().optional(),
  hook_event_name: z.string(),
  stop_hook_active: z.boolean().optional(),
});

export const qwen: HostAdapter = {
  id: 'qwen',
  name: 'Qwen Code',
  payload,
  recognise: () => false, // its payload is Claude Code's: only `--host qwen` tells it
  request: (p) => {
    const stopHookActive = flag(p, 'stop_hook_active');
    return { host: 'qwen', event: str(p, 'hook_event_name') ?? 'Stop', sessionKey: `qwen:${str(p, 'session_id') ?? 'no-session'}:${str(p, 'agent_id') ?? ''}`, ...cwdOf(str(p, 'cwd')), ...(stopHookActive !== undefined ? { stopHookActive } : {}) };
  },
  answer: (_request, verdict) => claudeStyleAnswer(verdict),
  hostWill: (kind) => (kind === 'block' ? 'Qwen Code sends the agent back with the reason' : 'Qwen Code lets the agent stop and shows the note to the user'),
  install: { kind: 'matcher-groups', file: '.qwen/settings.json', events: ['Stop'] },
  timeoutUnit: 'milliseconds',
  defaultDeadlineSeconds: 60,
  warningChannel: 'systemMessage, printed on stderr with -p',
  promptSubmitEvent: 'UserPromptSubmit',
  trustStep: 'Qwen Code reads project hooks only in a trusted folder: answer its folder-trust question when it opens this folder.',
  configFolder: '.qwen',
  mcp: { file: '.qwen/settings.json', key: 'mcpServers', entry: ([command, ...args]) => ({ command, args: [...args, 'mcp'] }) },
};
