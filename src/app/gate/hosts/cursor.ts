import { z } from 'zod';
import { str, type HostAdapter } from './types';

/**
 * Cursor. https://cursor.com/docs/agent/hooks: .cursor/hooks.json `{ "version": 1, "hooks": {
 * "stop": [{ "command", "loop_limit" }] } }`. The stop input: conversation_id, generation_id,
 * hook_event_name "stop", workspace_roots, status ("completed" | "aborted" | "error"),
 * loop_count. The answer `{ "followup_message": "..." }` is sent as the user's next message;
 * `loop_limit` caps how many times in a row (the gate writes its --max-blocks there).
 * Cursor shows nothing to the user from a stop hook that lets the agent go.
 */
const payload = () => z.looseObject({ conversation_id: z.string().optional(), hook_event_name: z.literal('stop'), workspace_roots: z.array(z.string()).optional(), status: z.string().optional(), loop_count: z.number().optional() });

export const cursor: HostAdapter = {
  id: 'cursor',
  name: 'Cursor',
  payload,
  recognise: (p) => p.hook_event_name === 'stop' && 'conversation_id' in p,
  request: (p) => {
    const roots = Array.isArray(p.workspace_roots) ? p.workspace_roots.filter((r): r is string => typeof r === 'string') : [];
    const loops = typeof p.loop_count === 'number' ? p.loop_count : undefined;
    return { host: 'cursor', event: 'stop', sessionKey: `cursor:${str(p, 'conversation_id') ?? 'no-conversation'}`, ...(roots[0] ? { cwd: roots[0] } : {}), ...(loops !== undefined ? { stopHookActive: loops > 0 } : {}) };
  },
  answer: (_request, verdict) => (verdict.kind === 'block' ? { exitCode: 0, stdout: JSON.stringify({ followup_message: verdict.reason }) } : { exitCode: 0, stdout: '{}' }),
  hostWill: (kind) => (kind === 'block' ? 'Cursor sends the reason as the next message' : 'Cursor lets the agent stop (it shows no note)'),
  install: { kind: 'own-file', file: '.cursor/hooks.json' },
  timeoutUnit: 'seconds',
  defaultDeadlineSeconds: 60,
  warningChannel: 'none: Cursor shows no output of a stop hook',
  configFolder: '.cursor',
  // https://cursor.com/docs/context/mcp: .cursor/mcp.json `mcpServers`.
  mcp: { file: '.cursor/mcp.json', key: 'mcpServers', entry: ([command, ...args]) => ({ command, args: [...args, 'mcp'] }) },
};
