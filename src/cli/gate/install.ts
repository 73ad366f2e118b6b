import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { HOST_ADAPTERS, hostAdapter, type HostAdapter } from '../../app/gate/hosts';
import { defineCommand } from '../shared/command';
import type { CliIo } from '../shared/io';
import { hookLauncher, sayLauncher, type InstallRuntime } from './install/launcher';
import { installOne } from './install/one-host';
import { INSTALL_SCOPES, scopesOf, workspaceRisk, type InstallScope } from './install/scope';
import { GATE_INSTALL_USAGE } from './usage';

const HOST_IDS = HOST_ADAPTERS.map((h) => h.id);

const INSTALL = defineCommand({
  name: 'ideal-state gate install',
  usage: GATE_INSTALL_USAGE,
  options: {
    workspace: { type: 'string' },
    command: { type: 'string' },
    'max-blocks': { type: 'string' },
    detect: { type: 'boolean', default: false },
    scope: { type: 'string' },
    sandbox: { type: 'boolean', default: false },
    'no-mcp': { type: 'boolean', default: false },
    yes: { type: 'boolean', default: false },
  },
});

/** `ideal-state gate install`: writes the gate's hook (and MCP entry) into each host's configuration, after showing it. */
export async function gateInstallCommand(argv: string[], io: CliIo, runtime: InstallRuntime = { node: process.execPath, cli: process.argv[1] }): Promise<number> {
  const parsed = INSTALL.parse(argv, io);
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  if (values['max-blocks'] !== undefined && !/^\d+$/.test(values['max-blocks'])) return INSTALL.refuse(io, `--max-blocks takes a whole number from 0, not "${values['max-blocks']}"`);
  const workspace = path.resolve(values.workspace ?? process.cwd());
  const scope = (values.scope ?? 'workspace') as InstallScope;
  if (!INSTALL_SCOPES.includes(scope)) return INSTALL.refuse(io, `--scope takes ${INSTALL_SCOPES.join(', ')}, not "${values.scope}"`);
  let hosts: HostAdapter[];
  if (values.detect) {
    if (positionals.length > 0) return INSTALL.refuse(io, '--detect takes no host name');
    hosts = [];
    for (const h of HOST_ADAPTERS) if (await exists(path.join(workspace, h.configFolder))) hosts.push(h);
    if (hosts.length === 0) {
      io.err(`ideal-state gate install --detect: no host's configuration folder in ${workspace} (looked for ${HOST_ADAPTERS.map((h) => h.configFolder).join(', ')}); name a host instead`);
      return 1;
    }
    io.out(`found: ${hosts.map((h) => `${h.name} (${h.configFolder})`).join(', ')}`);
  } else {
    const adapter = positionals.length === 1 ? hostAdapter(positionals[0]!) : undefined;
    if (!adapter) return INSTALL.usageError(io, `name one host: ${HOST_IDS.join(', ')} (or --detect)`);
    hosts = [adapter];
  }
  if (values.sandbox && (scope === 'workspace' || hosts[0]?.id !== 'claude-code')) return INSTALL.refuse(io, '--sandbox goes with claude-code --scope user or managed (a sandbox setting in the workspace is one the agent can turn off)');
  if (scope !== 'workspace' && (values.detect || !scopesOf(hosts[0]!.id).includes(scope))) {
    return INSTALL.refuse(io, `--scope ${scope} ${values.detect ? 'takes one host, not --detect' : `is not a place ${hosts[0]!.name} reads hooks from (it takes: ${scopesOf(hosts[0]!.id).join(', ')}); ${workspaceRisk(hosts[0]!) ?? 'it has no hook file'}`}`);
  }
  const chosen = await hookLauncher(values.command?.trim() || undefined, workspace, runtime);
  if ('refused' in chosen) {
    io.err(`ideal-state gate install: ${chosen.refused}`);
    return 1;
  }
  for (const w of chosen.warnings) io.err(`warning: ${w}`);
  const launcher = chosen.launcher;
  // A --command rewritten to this install's own paths is checked and said as the default is.
  const given = launcher === values.command?.trim() ? launcher : undefined;
  const said = await sayLauncher(launcher, given, workspace, runtime, io);
  if (!said.ok) return 1;
  let status = 0;
  for (const adapter of hosts) {
    const code = await installOne(adapter, { workspace, launcher, mcpLauncher: said.mcpLauncher, maxBlocks: values['max-blocks'], mcp: !values['no-mcp'], yes: values.yes, scope, sandbox: values.sandbox, env: runtime.env ?? process.env }, io);
    status = Math.max(status, code);
  }
  // Said after the changes, which come first.
  for (const line of said.lines) io.out(line);
  return status;
}

async function exists(p: string): Promise<boolean> {
  return fs.stat(p).then(
    () => true,
    () => false,
  );
}
