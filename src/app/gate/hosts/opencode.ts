import { z } from 'zod';
import { str, type HostAdapter } from './types';

/**
 * opencode. No command hooks: plugins (https://opencode.ai/docs/plugins) in
 * .opencode/plugin(s)/*.{js,ts} (the 1.18.33 binary globs `{plugin,plugins}/*.{ts,js}`) get
 * every bus event; `session.idle` is the agent having stopped. The plugin the product ships
 * (below) runs the gate with a small payload of its own and, on a block, sends the reason back
 * into the session as the next prompt (`client.session.prompt`); a note goes to a TUI toast.
 * It works under `opencode serve` / the TUI; `opencode run` exits on the first idle.
 */
const payload = () => z.looseObject({ hook_event_name: z.literal('session.idle'), session_id: z.string().optional(), cwd: z.string().optional() });

export const opencode: HostAdapter = {
  id: 'opencode',
  name: 'opencode',
  payload,
  recognise: (p) => p.hook_event_name === 'session.idle',
  request: (p) => ({ host: 'opencode', event: 'session.idle', sessionKey: `opencode:${str(p, 'session_id') ?? 'no-session'}`, ...(str(p, 'cwd') ? { cwd: str(p, 'cwd') } : {}) }),
  answer: (_request, verdict) => ({ exitCode: 0, stdout: JSON.stringify(verdict.kind === 'block' ? { decision: 'block', reason: verdict.reason } : verdict.note ? { systemMessage: verdict.note } : {}) }),
  hostWill: (kind) => (kind === 'block' ? "the Ideal State plugin sends the reason into opencode's session as the next prompt" : 'opencode stays stopped; the plugin shows the note as a toast'),
  install: { kind: 'own-file', file: '.opencode/plugin/ideal-state-gate.js' },
  timeoutUnit: 'milliseconds',
  defaultDeadlineSeconds: 600,
  warningChannel: 'a TUI toast from the plugin (tui.toast.show)',
  configFolder: '.opencode',
  // https://opencode.ai/docs/mcp-servers: opencode.json `mcp` { type: "local", command: [...] }.
  mcp: { file: 'opencode.json', key: 'mcp', entry: (launcher) => ({ type: 'local', command: [...launcher, 'mcp'], enabled: true }) },
  hookFile: (command, { timeoutSeconds }) =>
    [
      '// Ideal State stop gate for opencode, written by `ideal-state gate install opencode`.',
      '// On session.idle it runs the gate; a block sends the reason back as the next prompt.',
      "import { exec } from 'node:child_process';",
      '',
      `const COMMAND = ${JSON.stringify(command)};`,
      `const TIMEOUT_MS = ${timeoutSeconds * 1000};`,
      '',
      'function gate(input) {',
      '  return new Promise((resolve) => {',
      '    const child = exec(COMMAND, { timeout: TIMEOUT_MS, maxBuffer: 4 * 1024 * 1024 }, (error, stdout) => {',
      '      try {',
      '        resolve(JSON.parse(stdout));',
      '      } catch {',
      '        resolve({ systemMessage: `Ideal State gate did not answer: ${error ? error.message : stdout}` });',
      '      }',
      '    });',
      '    child.stdin.end(JSON.stringify(input));',
      '  });',
      '}',
      '',
      'export const IdealStateGate = async ({ client, directory }) => ({',
      '  event: async ({ event }) => {',
      "    if (event.type !== 'session.idle') return;",
      '    const sessionID = event.properties.sessionID;',
      "    const answer = await gate({ hook_event_name: 'session.idle', session_id: sessionID, cwd: directory });",
      "    if (answer.decision === 'block') {",
      "      await client.session.prompt({ path: { id: sessionID }, body: { parts: [{ type: 'text', text: answer.reason }] } });",
      '    } else if (answer.systemMessage) {',
      "      await client.tui.showToast({ body: { message: answer.systemMessage, variant: 'warning' } }).catch(() => {});",
      '    }',
      '  },',
      '});',
      '',
    ].join('\n'),
};
