import { z } from 'zod';
import type { HostAdapter } from './types';

/**
 * Kiro. https://kiro.dev/docs/hooks/types#agent-stop and /docs/hooks/actions: a hook file in
 * .kiro/hooks/ triggered on agentStop whose action runs a shell command; no payload is
 * documented (so no session to count blocks in). Exit 0 adds stdout to the agent's context;
 * any other exit code sends stderr to the agent as the hook's error.
 */
export const kiro: HostAdapter = {
  id: 'kiro',
  name: 'Kiro',
  payload: () => z.looseObject({}),
  recognise: (p) => Object.keys(p).length === 0,
  request: () => ({ host: 'kiro', event: 'agentStop', sessionKey: 'kiro:workspace' }),
  answer: (_request, verdict) => (verdict.kind === 'block' ? { exitCode: 1, stderr: verdict.reason } : { exitCode: 0, stdout: verdict.note ?? 'Ideal State: every CRITICAL criterion passes.' }),
  hostWill: (kind) => (kind === 'block' ? 'Kiro gives the reason to the agent as the hook error' : 'Kiro lets the agent stop'),
  install: { kind: 'own-file', file: '.kiro/hooks/ideal-state-gate.kiro.hook' },
  timeoutUnit: 'seconds',
  defaultDeadlineSeconds: 60,
  warningChannel: 'the hook output in the agent context',
  configFolder: '.kiro',
  // https://kiro.dev/docs/mcp/configuration: .kiro/settings/mcp.json `mcpServers`.
  mcp: { file: '.kiro/settings/mcp.json', key: 'mcpServers', entry: ([command, ...args]) => ({ command, args: [...args, 'mcp'] }) },
  hookFile: (command, { timeoutSeconds }) =>
    `${JSON.stringify(
      {
        enabled: true,
        name: 'Ideal State stop gate',
        description: 'Verifies the workspace PRD when the agent stops; a failing CRITICAL criterion is sent back to the agent.',
        version: '1',
        when: { type: 'agentStop' },
        then: { type: 'runCommand', command, timeout: timeoutSeconds },
      },
      null,
      2,
    )}\n`,
};
