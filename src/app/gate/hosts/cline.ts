import { z } from 'zod';
import { str, type HostAdapter } from './types';

/**
 * Cline. Its hooks (https://docs.cline.bot/features/hooks/hook-reference) have no event
 * before the agent stops: `TaskComplete` runs after the task has completed, detached, and its
 * answer is never read (seen with the Cline CLI 3.0.65). So Cline cannot be held by a hook
 * today: `gate install cline` writes no hook, offers the MCP server (the agent can verify
 * before it says done) and says so. A TaskComplete payload that still reaches the gate (a hook
 * from an older install) is answered without a block: the LOG says nothing was held.
 */
const payload = () => z.looseObject({ hookName: z.string(), taskId: z.string().optional(), workspaceRoots: z.array(z.string()).optional() });

export const cline: HostAdapter = {
  id: 'cline',
  name: 'Cline',
  payload,
  recognise: (p) => typeof p.hookName === 'string',
  request: (p) => {
    const roots = Array.isArray(p.workspaceRoots) ? p.workspaceRoots.filter((r): r is string => typeof r === 'string') : [];
    return { host: 'cline', event: str(p, 'hookName') ?? 'TaskComplete', sessionKey: `cline:${str(p, 'taskId') ?? 'no-task'}`, ...(roots[0] ? { cwd: roots[0] } : {}) };
  },
  // The task has already completed: a block could not hold it, so the reason is only reported.
  answer: (_request, verdict) => ({ exitCode: 0, stdout: JSON.stringify(verdict.kind === 'block' ? { cancel: false, contextModification: verdict.reason } : verdict.note ? { cancel: false, contextModification: verdict.note } : { cancel: false }) }),
  hostWill: () => 'Cline does not read the answer (TaskComplete runs after the task completed); nothing was held',
  install: { kind: 'none', why: 'Cline runs no hook before its agent stops (TaskComplete runs after the task has completed, and its answer is not read), so no hook can hold it' },
  timeoutUnit: 'seconds',
  defaultDeadlineSeconds: 30,
  warningChannel: 'none',
  configFolder: '.clinerules',
  // Cline's MCP servers live in its own settings (cline_mcp_settings.json), not in the workspace.
  mcp: { file: 'cline_mcp_settings.json (Cline → MCP Servers → Configure)', key: 'mcpServers', entry: ([command, ...args]) => ({ command, args: [...args, 'mcp'], disabled: false }) },
};
