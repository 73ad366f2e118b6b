import { z } from 'zod';
import { claudeStyleAnswer, str, type HostAdapter } from './types';

/**
 * Augment (Auggie CLI). https://docs.augmentcode.com/cli/hooks: hooks in settings.json under
 * `hooks.Stop` as matcher groups `{ hooks: [{ type: "command", command, timeout }] }`, the
 * timeout in milliseconds; the Stop input has hook_event_name "Stop", conversation_id,
 * workspace_roots and agent_stop_cause; `{"decision":"block","reason"}` keeps the agent going.
 * From the documentation only: Auggie is not on the npm registry this tier installs from.
 */
const payload = () => z.looseObject({ hook_event_name: z.string(), conversation_id: z.string().optional(), workspace_roots: z.array(z.string()).optional() });

export const augment: HostAdapter = {
  id: 'augment',
  name: 'Augment',
  payload,
  recognise: (p) => typeof p.hook_event_name === 'string' && 'conversation_id' in p && 'agent_stop_cause' in p,
  request: (p) => {
    const roots = Array.isArray(p.workspace_roots) ? p.workspace_roots.filter((r): r is string => typeof r === 'string') : [];
    return { host: 'augment', event: str(p, 'hook_event_name') ?? 'Stop', sessionKey: `augment:${str(p, 'conversation_id') ?? 'no-conversation'}`, ...(roots[0] ? { cwd: roots[0] } : {}) };
  },
  answer: (_request, verdict) => claudeStyleAnswer(verdict),
  hostWill: (kind) => (kind === 'block' ? 'Augment sends the agent back with the reason' : 'Augment lets the agent stop'),
  install: { kind: 'matcher-groups', file: '.augment/settings.json', events: ['Stop'] },
  timeoutUnit: 'milliseconds',
  defaultDeadlineSeconds: 60,
  warningChannel: 'systemMessage',
  configFolder: '.augment',
};
