import { z } from 'zod';
import { cwdOf, flag, str, type HostAdapter } from './types';
import { vscodeAnswer } from './vscode';

/**
 * GitHub Copilot CLI. https://docs.github.com/en/copilot/reference/hooks-configuration:
 * .github/hooks/*.json `{ "version": 1, "hooks": { "agentStop": [{ "type": "command", "bash",
 * "timeoutSec" }] } }`; the agentStop input is camelCase (timestamp, cwd, sessionId) with no
 * event name. Copilot CLI 1.0.102 also runs the `Stop` entries VS Code's file holds, with this
 * same payload, and reads only a top-level `decision`/`reason`: the answer carries both the
 * top-level and VS Code's nested form, so one file serves both hosts. The SDK's types
 * (copilot-sdk/types.d.ts, AgentStopHookInput/Output in 1.0.102): `stopHookActive` and
 * `{ decision: "block", reason }`, the reason "enqueued as a follow-up user message".
 * Proven by test/hosts (Copilot CLI 1.0.102).
 */
const payload = () => z.looseObject({ sessionId: z.string().optional(), cwd: z.string().optional(), timestamp: z.union([z.string(), z.number()]).optional() });

export const copilotCli: HostAdapter = {
  id: 'copilot',
  name: 'Copilot CLI',
  payload,
  recognise: (p) => typeof p.sessionId === 'string' && !('hookEventName' in p) && !('hook_event_name' in p),
  request: (p) => {
    const stopHookActive = flag(p, 'stopHookActive');
    return { host: 'copilot', event: 'agentStop', sessionKey: `copilot:${str(p, 'sessionId') ?? 'no-session'}`, ...cwdOf(str(p, 'cwd')), ...(stopHookActive !== undefined ? { stopHookActive } : {}) };
  },
  answer: (_request, verdict) => vscodeAnswer(undefined, verdict),
  hostWill: (kind) => (kind === 'block' ? 'Copilot CLI sends the agent back with the reason' : 'Copilot CLI lets the agent stop'),
  install: { kind: 'own-file', file: '.github/hooks/ideal-state.json' },
  timeoutUnit: 'seconds',
  defaultDeadlineSeconds: 30,
  // Measured (1.0.102): test/hosts checks that the agentStop answer's systemMessage is dropped (the
  // session file records the hook's output as {}) and not printed; its TUI timeline skips
  // hook.start/hook.end events (cli-main.js). Tried once with the tier's harness: the note on stderr
  // with exit 0 is dropped (in no output, session file or log); with exit 1 it is only a hook error
  // in its session file and log, not shown. No channel reaches the user; the answer keeps VS
  // Code's systemMessage, since VS Code reads the same file and shows it.
  warningChannel: "nothing: Copilot CLI keeps only decision/reason of an agentStop answer and draws no hook output; the PRD's LOG records that the gate let the agent stop",
  promptSubmitEvent: 'userPromptSubmitted',
  // cli-main.js of 1.0.102: repository hooks from .github/hooks/ run only in a trusted folder
  // (folderTrustIsTrusted, `trustedFolders` in ~/.copilot/config.json, or COPILOT_ALLOW_ALL).
  trustStep: 'Copilot CLI runs the hooks in .github/hooks/ only in a trusted folder: answer "Yes" when it asks whether to trust this folder (or add it to "trusted_folders" in ~/.copilot/config.json).',
  configFolder: '.github',
  // Copilot CLI reads a workspace .mcp.json (not .vscode/mcp.json).
  mcp: { file: '.mcp.json', key: 'mcpServers', entry: ([command, ...args]) => ({ type: 'local', command, args: [...args, 'mcp'], tools: ['*'] }) },
};
