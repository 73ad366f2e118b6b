import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { lineDiff } from '../agent/line-diff';
import { checkLauncherRuns, mcpLauncherFor } from '../app/gate/hook-command';
import { launcherInWorkspace } from '../app/gate/launcher-reach';
import { HOST_ADAPTERS, hostAdapter, type HostAdapter } from '../app/gate/hosts';
import { shellWord } from '../app/gate/held';
import { isObject, listAt, mergeJson, type Plan, type Planned } from './gate-install-json';
import { mergeTomlTable } from './gate-install-toml';
import { denyRules, hostUserTarget, INSTALL_SCOPES, onPath, planOutsideWorkspace, sandboxMissing, scopeTarget, scopesOf, workspaceRisk, type InstallScope } from './gate-install-scope';
import { gateStateFolder } from '../app/gate/state-folder';
import type { VerifyIo } from './verify';

const HOST_IDS = HOST_ADAPTERS.map((h) => h.id);

export const GATE_INSTALL_USAGE = `Usage: ideal-state gate install <host> [options]
       ideal-state gate install --detect [options]

Writes the stop hook that runs \`ideal-state gate\` into the workspace, in the host's own
configuration, keeping everything already there, and the host's MCP entry for
\`ideal-state mcp\`. Shows the changes first and asks (--yes writes without asking; without a
terminal, nothing is written unless --yes is given). The hook's command is run once first
(\`LAUNCHER --version\`): one that does not start Ideal State is refused (with --command: warned).
Then names the host's trust step.
${HOST_ADAPTERS.map((h) => `  ${h.id.padEnd(12)} ${h.install.kind === 'none' ? `no hook: ${h.install.why}` : `${h.install.file}${'events' in h.install ? `  hooks.${h.install.events.join(', hooks.')}` : ''}`}`).join('\n')}

Options:
  --detect          install for every host whose configuration folder exists in the workspace
  --sandbox         with --scope user or managed: turn Claude Code's sandbox on there, so the deny
                    rules bind the agent's shell too (macOS; Linux with bubblewrap and socat)
  --scope SCOPE     where the hook lives: workspace (default: the host's file in the workspace,
                    which the agent can write; the risk is said at install), user (outside the
                    workspace: Claude Code's CLAUDE_CONFIG_DIR or ~/.claude/settings.json, with
                    deny rules for the workspace's .claude settings and the gate's state folder;
                    Codex's $CODEX_HOME/hooks.json; ~/.gemini/settings.json; ~/.qwen/settings.json)
                    or managed (Claude Code only: a drop-in in its managed-settings.d, which no
                    workspace setting turns off; needs administrator rights). A workspace setting
                    can still turn a user-level hook off: each install says which. The hook names
                    --workspace, and a stop in another project goes through untouched.
  --workspace DIR   the workspace (default: the current directory); written into the command
  --command CMD     how the hook starts Ideal State (default: the absolute paths of the Node
                    running this install and of its dist/cli.js, never looked up on PATH);
                    a command found through the workspace ("npx ideal-state", a path in it,
                    node_modules/.bin on PATH) is never written: it is replaced by those
                    absolute paths, said, or refused when this install runs from the workspace
  --max-blocks N    passed on to the gate (default: the gate's, 3)
  --no-mcp          write only the hook, not the MCP entry
  --yes             write without asking
`;

/**
 * Seconds a host waits for the hook: verification runs commands and tests. The same number is
 * the gate's --deadline, and the gate answers inside it: its checks end at the budget (the
 * deadline less 10 %, at least 2 s, at most 30 s) and its watchdog answers halfway between the
 * budget and the deadline (585 s of 600) whatever is still pending.
 */
export const HOOK_TIMEOUT_SECONDS = 600;
/** How an existing entry is known to be the gate's, so installing twice updates it. */
const OURS = /\bideal-state\b.*\bgate\b|\bcli\.js\b.*\bgate\b/;

/** A host's timeout value in its own unit. Milliseconds are written as 1000 or more, which Qwen Code reads as milliseconds in every version. */
export function timeoutIn(adapter: HostAdapter, seconds: number): number {
  return adapter.timeoutUnit === 'milliseconds' ? Math.max(1000, seconds * 1000) : seconds;
}

/** The command line a host's hook runs: the launcher, the host, the workspace (quoted for a shell) and the host's timeout, so the gate answers before it. */
export function gateCommandLine(launcher: string, host: string, workspace: string, maxBlocks?: string, userLevel = false): string {
  const q = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  return `${launcher} gate --host ${host} --workspace ${q(workspace)} --deadline ${HOOK_TIMEOUT_SECONDS}${maxBlocks !== undefined ? ` --max-blocks ${maxBlocks}` : ''}${userLevel ? ' --user-level' : ''}`;
}

export async function gateInstallCommand(argv: string[], io: VerifyIo, runtime: InstallRuntime = { node: process.execPath, cli: process.argv[1] }): Promise<number> {
  let values;
  let positionals;
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        workspace: { type: 'string' },
        command: { type: 'string' },
        'max-blocks': { type: 'string' },
        detect: { type: 'boolean', default: false },
        scope: { type: 'string' },
        sandbox: { type: 'boolean', default: false },
        'no-mcp': { type: 'boolean', default: false },
        yes: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (error) {
    io.err(`ideal-state gate install: ${(error as Error).message}\n\n${GATE_INSTALL_USAGE}`);
    return 2;
  }
  if (values.help) {
    io.out(GATE_INSTALL_USAGE);
    return 0;
  }
  if (values['max-blocks'] !== undefined && !/^\d+$/.test(values['max-blocks'])) {
    io.err(`ideal-state gate install: --max-blocks takes a whole number from 0, not "${values['max-blocks']}"`);
    return 2;
  }
  const workspace = path.resolve(values.workspace ?? process.cwd());
  const scope = (values.scope ?? 'workspace') as InstallScope;
  if (!INSTALL_SCOPES.includes(scope)) {
    io.err(`ideal-state gate install: --scope takes ${INSTALL_SCOPES.join(', ')}, not "${values.scope}"`);
    return 2;
  }
  let hosts: HostAdapter[];
  if (values.detect) {
    if (positionals.length > 0) {
      io.err('ideal-state gate install: --detect takes no host name');
      return 2;
    }
    hosts = [];
    for (const h of HOST_ADAPTERS) if (await exists(path.join(workspace, h.configFolder))) hosts.push(h);
    if (hosts.length === 0) {
      io.err(`ideal-state gate install --detect: no host's configuration folder in ${workspace} (looked for ${HOST_ADAPTERS.map((h) => h.configFolder).join(', ')}); name a host instead`);
      return 1;
    }
    io.out(`found: ${hosts.map((h) => `${h.name} (${h.configFolder})`).join(', ')}`);
  } else {
    const adapter = positionals.length === 1 ? hostAdapter(positionals[0]!) : undefined;
    if (!adapter) {
      io.err(`ideal-state gate install: name one host: ${HOST_IDS.join(', ')} (or --detect)\n\n${GATE_INSTALL_USAGE}`);
      return 2;
    }
    hosts = [adapter];
  }
  if (values.sandbox && (scope === 'workspace' || hosts[0]?.id !== 'claude-code')) {
    io.err('ideal-state gate install: --sandbox goes with claude-code --scope user or managed (a sandbox setting in the workspace is one the agent can turn off)');
    return 2;
  }
  if (scope !== 'workspace' && (values.detect || !scopesOf(hosts[0]!.id).includes(scope))) {
    io.err(`ideal-state gate install: --scope ${scope} ${values.detect ? 'takes one host, not --detect' : `is not a place ${hosts[0]!.name} reads hooks from (it takes: ${scopesOf(hosts[0]!.id).join(', ')}); ${workspaceRisk(hosts[0]!) ?? 'it has no hook file'}`}`);
    return 2;
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

/**
 * The launcher, checked to start this command line before anything is written (`LAUNCHER
 * --version`, through a shell, as the host will run it), and said. The default launcher that
 * does not start is refused; one the person gave (--command) is theirs, for a machine or
 * container other than this one, and is written with a warning that it does not start here.
 * The MCP entry uses `ideal-state` only when that name on PATH is this command line.
 */
async function sayLauncher(launcher: string, given: string | undefined, workspace: string, runtime: InstallRuntime, io: VerifyIo): Promise<{ ok: true; mcpLauncher: string; lines: string[] } | { ok: false }> {
  const lines: string[] = [];
  const runs = await checkLauncherRuns(launcher, { cwd: workspace, env: process.env, timeoutMs: LAUNCHER_CHECK_MS });
  if (!runs.ok && given === undefined) {
    io.err(`ideal-state gate install: the hook would run \`${launcher}\`, which does not start here: ${runs.line}. Nothing written.`);
    return { ok: false };
  }
  if (!runs.ok) io.err(`warning: --command \`${launcher}\` does not start Ideal State here (${runs.line}); written as given, the hook lets every stop through wherever it does not start`);
  else lines.push(`the hook starts Ideal State ${runs.version} as \`${launcher}\` (${given !== undefined ? 'your --command' : 'the Node and command line that ran this install, by absolute path'}; checked: it starts)`);
  if (given !== undefined) return { ok: true, mcpLauncher: given, lines };
  const mcp = mcpLauncherFor(launcher, runtime.cli);
  lines.push(`the MCP server starts as \`${mcp.launcher} mcp\` (${mcp.why})`);
  return { ok: true, mcpLauncher: mcp.launcher, lines };
}

/** How long `LAUNCHER --version` may take: a cold start of Node and the lean command line is well under a second. */
const LAUNCHER_CHECK_MS = 30_000;

/** The Node running this install and the command line file it was started as (process.argv[1]). */
export interface InstallRuntime {
  node: string;
  cli: string | undefined;
  /** The environment the user and managed settings folders are found from (HOME, CLAUDE_CONFIG_DIR); default: this process's. */
  env?: NodeJS.ProcessEnv;
}

/**
 * How the hook starts Ideal State. By default the absolute paths of the Node that runs this
 * install and of the command line file (dist/cli.js), each checked to be a regular file: a
 * hook that says `ideal-state` or `node` is looked up on the PATH the host gives it at every
 * stop, and an agent that put a program of that name first (`env.PATH` in its host's settings)
 * answered instead of the gate. `--command` stays the person's choice, with a warning where it
 * is looked up on PATH or lies inside the workspace (node_modules/.bin, which the agent can
 * replace).
 */
export async function hookLauncher(given: string | undefined, workspace: string, runtime: InstallRuntime): Promise<{ launcher: string; warnings: string[] } | { refused: string }> {
  const warnings: string[] = [];
  const own = await ownLauncher(runtime);
  if (given === undefined) {
    if (own) {
      for (const f of own.files) if (inside(f, workspace)) warnings.push(`${f} is inside the workspace ${workspace}: an agent working there can replace it, and the hook would run what it put there; install Ideal State outside the workspace (npm install -g ideal-state) and install the gate again`);
      return { launcher: own.launcher, warnings };
    }
    warnings.push(`the command line file this install was started from (${runtime.cli ?? 'unknown'}) is not Ideal State's dist/cli.js, so the hook runs \`ideal-state\`, looked up on PATH at every stop: an agent that puts a program of that name first on the PATH its host gives the hook (an \`env\` in the host's settings) answers instead of the gate. Run \`ideal-state gate install\` from the installed command line to write absolute paths`);
    return { launcher: 'ideal-state', warnings };
  }
  const words = splitLauncher(given);
  const first = words[0] ?? '';
  // A launcher that runs what the workspace holds is the agent's to replace: never written.
  const reach = launcherInWorkspace(words, workspace, (runtime.env ?? process.env).PATH ?? '');
  if (reach) {
    const outside = own && !own.files.some((f) => inside(f, workspace));
    if (!outside) return { refused: `--command \`${given}\` is not written: ${reach.why}, and the hook would run what it put there. Install Ideal State outside the workspace (npm install -g ideal-state) and run \`ideal-state gate install\` from it, which writes the absolute paths of its Node and command line, or give --command with absolute paths outside the workspace. Nothing written.` };
    warnings.push(`--command \`${given}\` is not written as given: ${reach.why}. The hook runs \`${own.launcher}\` instead: the absolute paths of the Node and command line running this install, outside the workspace`);
    return { launcher: own.launcher, warnings };
  }
  if (!path.isAbsolute(first)) warnings.push(`--command: "${first}" is looked up on PATH at every stop: an agent that puts a program of that name first on the PATH its host gives the hook (an \`env\` in the host's settings) answers instead of the gate. An absolute path (e.g. ${process.execPath} /path/to/ideal-state/dist/cli.js) is not`);
  return { launcher: given, warnings };
}

/** The Node running this install and its dist/cli.js, by real path, each a regular file; undefined when this is not Ideal State's command line. */
async function ownLauncher(runtime: InstallRuntime): Promise<{ launcher: string; files: string[] } | undefined> {
  const node = await regularFile(runtime.node);
  const cli = runtime.cli ? await regularFile(runtime.cli) : undefined;
  if (!node || !cli || path.basename(cli) !== 'cli.js') return undefined;
  return { launcher: `${shellWord(node)} ${shellWord(cli)}`, files: [node, cli] };
}

/** The real path of a regular file, or undefined. */
async function regularFile(file: string): Promise<string | undefined> {
  if (!path.isAbsolute(file)) return undefined;
  const real = await fs.realpath(file).catch(() => undefined);
  if (!real) return undefined;
  return (await fs.stat(real).then((s) => s.isFile(), () => false)) ? real : undefined;
}

function inside(file: string, workspace: string): boolean {
  const r = path.relative(workspace, file);
  return r === '' || (!r.startsWith('..') && !path.isAbsolute(r));
}

interface InstallOptions {
  workspace: string;
  launcher: string;
  /** The MCP server's entry is the person's to move with the installed command line: `ideal-state` unless --command says otherwise. */
  mcpLauncher: string;
  maxBlocks: string | undefined;
  mcp: boolean;
  yes: boolean;
  scope: InstallScope;
  /** Turn Claude Code's sandbox on in the scoped settings, so the deny rules bind its shell too. */
  sandbox: boolean;
  env: NodeJS.ProcessEnv;
}

/**
 * What a Claude Code gate in the user's settings is still open to, as measured with the real
 * program (the hosts tier's attacks file asserts each): said at install, named by gate doctor
 * when it is in place.
 */
const USER_SCOPE_GAPS =
  'Still open at user scope (measured, Claude Code 2.1.332): a "disableAllHooks": true in the workspace\'s .claude/settings.json or settings.local.json turns a user-level hook off; ' +
  'a second Stop hook the agent adds that answers {"continue": false} ends the session past the gate\'s block; an "env" NODE_OPTIONS preload in the workspace settings reaches the gate\'s own Node; ' +
  'and without the sandbox a program the agent runs (node -e …) can still edit the user settings. gate doctor names each of these when it is in place. ' +
  '--scope managed is the one no workspace setting turns off.';

async function installOne(adapter: HostAdapter, options: InstallOptions, io: VerifyIo): Promise<number> {
  const { workspace, launcher } = options;
  const command = gateCommandLine(launcher, adapter.id, workspace, options.maxBlocks, options.scope !== 'workspace');
  const changes: Planned[] = [];
  const notes: string[] = [];
  if (adapter.install.kind === 'none') {
    notes.push(`${adapter.name}: no stop gate: ${adapter.install.why}. Ideal State cannot keep its agent from stopping; the MCP server lets the agent verify before it says done, and \`ideal-state verify\` reports afterwards.`);
  } else if (options.scope === 'user' && adapter.id !== 'claude-code') {
    const target = hostUserTarget(adapter, options.env)!;
    const plan = await planOutsideWorkspace(adapter, target, workspace, command, timeoutIn(adapter, HOOK_TIMEOUT_SECONDS), [], OURS);
    if (!plan.ok) {
      io.err(plan.message);
      return 2;
    }
    changes.push(plan.change);
    notes.push(`Risk: ${workspaceRisk(adapter)}`);
  } else if (options.scope !== 'workspace') {
    const target = scopeTarget(options.scope, workspace, options.env);
    const userSettings = scopeTarget('user', workspace, options.env).shown;
    const deny = denyRules(workspace, await gateStateFolder(workspace, options.env), userSettings);
    const plan = await planOutsideWorkspace(adapter, target, workspace, command, timeoutIn(adapter, HOOK_TIMEOUT_SECONDS), deny, OURS, options.sandbox);
    if (!plan.ok) {
      io.err(plan.message);
      return 2;
    }
    changes.push(plan.change);
    const missing = sandboxMissing(process.platform, (p) => onPath(p, options.env));
    const sandboxNote = options.sandbox
      ? `Claude Code's sandbox is turned on there, and its write restrictions take in those deny rules${missing ? `; but ${missing}` : ''}.`
      : `A program the agent's shell runs is held off them only by Claude Code's sandbox: add --sandbox to turn it on in ${target.shown}${missing ? ` (here ${missing})` : ''}.`;
    notes.push(`${target.shown} denies Claude Code's own file tools the workspace's Claude Code settings, the gate's state folder and ${userSettings}. ${sandboxNote}${options.scope === 'user' ? ` ${USER_SCOPE_GAPS}` : ''}`);
  } else {
    const plan = await planInstall(adapter, workspace, command, options.maxBlocks);
    if (!plan.ok) {
      io.err(plan.message);
      return 2;
    }
    changes.push(plan.change);
    const risk = workspaceRisk(adapter);
    if (risk) notes.push(`Risk: ${risk}`);
  }
  if (options.mcp && adapter.mcp) {
    const mcp = adapter.mcp;
    const entry = mcp.entry(splitLauncher(options.mcpLauncher));
    if (mcp.file.endsWith('.json') && !mcp.file.includes(' ')) {
      const plan = await mergeJson(workspace, mcp.file, (root) => {
        const servers = (root[mcp.key] ??= {});
        if (!isObject(servers)) return `"${mcp.key}" is not an object`;
        servers['ideal-state'] = entry;
        return undefined;
      });
      if (!plan.ok) io.err(`${plan.message} (the MCP entry is not written; the hook is)`);
      else changes.push(plan.change);
    } else if (mcp.file.endsWith('.toml')) {
      const plan = await mergeTomlTable(workspace, mcp.file, [mcp.key, 'ideal-state'], entry as Record<string, string | string[]>);
      if (!plan.ok) io.err(`${plan.message} (the MCP entry is not written; the hook is)`);
      else changes.push(plan.change);
    } else {
      notes.push(`${adapter.name} reads MCP servers from ${mcp.file}; add: ${mcp.file.endsWith('.toml') ? `[${mcp.key}.ideal-state] command = ${JSON.stringify(entry.command)}, args = ${JSON.stringify(entry.args)}` : JSON.stringify({ [mcp.key]: { 'ideal-state': entry } })}`);
    }
  }
  const real = mergeSameFile(changes).filter((c) => c.before !== c.after);
  if (real.length === 0 && changes.length > 0) io.out(`${changes.map((c) => c.shown ?? c.relative).join(', ')} already set for ${adapter.name}; nothing to change.`);
  if (real.length > 0) {
    for (const c of real) io.out(lineDiff(c.shown ?? c.relative, c.before, c.after).text);
    if (!options.yes) {
      if (!io.ask) {
        io.err(`ideal-state gate install: ${real.map((c) => c.shown ?? c.relative).join(', ')} not written: there is no terminal to ask; pass --yes to write ${real.length === 1 ? 'it' : 'them'}`);
        return 1;
      }
      const answer = (await io.ask(`Write ${real.map((c) => c.shown ?? c.relative).join(', ')}? [y/N] `)).trim().toLowerCase();
      if (answer !== 'y' && answer !== 'yes') {
        io.err(`ideal-state gate install: ${real.map((c) => c.shown ?? c.relative).join(', ')} not written`);
        return 1;
      }
    }
    for (const c of real) {
      const file = path.join(c.root ?? workspace, ...c.relative.split('/'));
      const wrote = await writeAtomic(file, c.after, c.executable).then(
        () => undefined,
        (error: NodeJS.ErrnoException) => error,
      );
      if (wrote) {
        const admin = wrote.code === 'EACCES' || wrote.code === 'EPERM' ? `: ${path.dirname(file)} is writable only by an administrator; run this install as one (e.g. with sudo)` : `: ${wrote.code ?? wrote.message}`;
        io.err(`ideal-state gate install: ${c.shown ?? c.relative} not written${admin}`);
        return 1;
      }
    }
  }
  if (adapter.install.kind !== 'none') {
    io.out(`${real.length > 0 ? `wrote ${real.map((c) => c.shown ?? c.relative).join(', ')}: ` : ''}${adapter.name} now runs \`${command}\` when its agent wants to stop (timeout ${timeoutIn(adapter, HOOK_TIMEOUT_SECONDS)} ${adapter.timeoutUnit}); the user sees the gate's warning as ${adapter.warningChannel}.`);
  }
  if (adapter.trustStep) io.out(`Trust step: ${adapter.trustStep}`);
  for (const note of notes) io.out(note);
  return 0;
}

/** Two changes to one file (hook and MCP entry in the same settings.json) become one. */
function mergeSameFile(changes: Planned[]): Planned[] {
  const out: Planned[] = [];
  for (const c of changes) {
    const i = out.findIndex((o) => o.relative === c.relative && o.root === c.root);
    if (i < 0) out.push(c);
    else out[i] = { ...out[i]!, after: mergeTexts(out[i]!.after, c.after) };
  }
  return out;
}

function mergeTexts(a: string, b: string): string {
  const merge = (x: unknown, y: unknown): unknown => (isObject(x) && isObject(y) ? Object.fromEntries([...new Set([...Object.keys(x), ...Object.keys(y)])].map((k) => [k, k in x && k in y ? merge(x[k], y[k]) : k in y ? y[k] : x[k]])) : y);
  return `${JSON.stringify(merge(JSON.parse(a), JSON.parse(b)), null, 2)}\n`;
}

function splitLauncher(launcher: string): string[] {
  return (launcher.match(/"[^"]*"|'[^']*'|\S+/g) ?? ['ideal-state']).map((s) => s.replace(/^["']|["']$/g, ''));
}

async function exists(p: string): Promise<boolean> {
  return fs.stat(p).then(
    () => true,
    () => false,
  );
}

async function writeAtomic(file: string, text: string, executable?: boolean): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.ideal-state-${process.pid}.tmp`;
  await fs.writeFile(tmp, text, { encoding: 'utf8', ...(executable ? { mode: 0o755 } : {}) });
  await fs.rename(tmp, file);
}

/** The hook entry `gate install` plans for a host, merged with what its file holds. */
export async function planInstall(adapter: HostAdapter, workspace: string, command: string, maxBlocks?: string): Promise<Plan> {
  const install = adapter.install;
  const timeout = timeoutIn(adapter, HOOK_TIMEOUT_SECONDS);
  const events = 'events' in install ? [...install.events, ...(adapter.promptSubmitEvent ? [adapter.promptSubmitEvent] : [])] : [];
  switch (install.kind) {
    case 'none':
      return { ok: false, message: `ideal-state gate install: ${adapter.name}: ${install.why}` };
    case 'matcher-groups':
      // Claude Code's shape (https://code.claude.com/docs/en/hooks "Configuration"), copied by
      // Codex, Gemini CLI, Qwen Code and Augment: hooks[Event] = [{ hooks: [{ type, command, timeout }] }].
      return mergeJson(workspace, install.file, (root) => {
        for (const event of events) {
          const list = listAt(root, 'hooks', event);
          if (typeof list === 'string') return list;
          const entry = { type: 'command', command, timeout };
          const group = list.find((g) => isObject(g) && Array.isArray(g.hooks) && g.hooks.some((h) => isObject(h) && typeof h.command === 'string' && OURS.test(h.command)));
          if (isObject(group)) {
            const hooks = group.hooks as unknown[];
            const i = hooks.findIndex((h) => isObject(h) && typeof h.command === 'string' && OURS.test(h.command));
            hooks[i] = { ...(hooks[i] as object), ...entry };
          } else list.push({ hooks: [entry] });
        }
        return undefined;
      });
    case 'flat':
      // VS Code's shape (https://code.visualstudio.com/docs/agent-customization/hooks#hook-configuration-format).
      return mergeJson(workspace, install.file, (root) => {
        for (const event of events) {
          const list = listAt(root, 'hooks', event);
          if (typeof list === 'string') return list;
          const entry = { type: 'command', command, timeout };
          const i = list.findIndex((h) => isObject(h) && typeof h.command === 'string' && OURS.test(h.command));
          if (i >= 0) list[i] = { ...(list[i] as object), ...entry };
          else list.push(entry);
        }
        return undefined;
      });
    case 'own-file':
      return ownFile(adapter, workspace, command, timeout, maxBlocks);
  }
}

async function ownFile(adapter: HostAdapter, workspace: string, command: string, timeout: number, maxBlocks?: string): Promise<Plan> {
  const file = (adapter.install as { file: string }).file;
  const ours = (list: unknown[], key: string) => list.findIndex((h) => isObject(h) && typeof h[key] === 'string' && OURS.test(h[key] as string));
  switch (adapter.id) {
    case 'copilot':
      // https://docs.github.com/en/copilot/reference/hooks-configuration: { version: 1, hooks: { agentStop: [{ type, bash, timeoutSec }] } }.
      // userPromptSubmitted ({ timestamp, cwd, prompt }, no event name) records the session
      // baseline; its payload cannot say it is a prompt, so its command line does (--prompt).
      return mergeJson(workspace, file, (root) => {
        root.version ??= 1;
        for (const [event, bash] of [['agentStop', command], [adapter.promptSubmitEvent!, `${command} --prompt`]] as const) {
          const list = listAt(root, 'hooks', event);
          if (typeof list === 'string') return list;
          const entry = { type: 'command', bash, timeoutSec: timeout };
          const i = ours(list, 'bash');
          if (i >= 0) list[i] = { ...(list[i] as object), ...entry };
          else list.push(entry);
        }
        return undefined;
      });
    case 'cursor':
      // https://cursor.com/docs/agent/hooks: { version: 1, hooks: { stop: [{ command, loop_limit }] } }.
      return mergeJson(workspace, file, (root) => {
        root.version ??= 1;
        const list = listAt(root, 'hooks', 'stop');
        if (typeof list === 'string') return list;
        const entry = { command, loop_limit: maxBlocks !== undefined ? Number(maxBlocks) : 3 };
        const i = ours(list, 'command');
        if (i >= 0) list[i] = { ...(list[i] as object), ...entry };
        else list.push(entry);
        return undefined;
      });
    case 'kiro':
      // https://kiro.dev/docs/hooks/types#agent-stop: the hook file is merged, so a user's
      // `enabled: false` survives a new install.
      return mergeJson(workspace, file, (root) => {
        const whole = JSON.parse(adapter.hookFile!(command, { timeoutSeconds: HOOK_TIMEOUT_SECONDS })) as Record<string, unknown>;
        for (const [key, value] of Object.entries(whole)) if (key !== 'enabled' || root.enabled === undefined) root[key] = value;
        return undefined;
      });
    default: {
      const before = await fs.readFile(path.join(workspace, ...file.split('/')), 'utf8').catch(() => undefined);
      if (before !== undefined && !OURS.test(before)) return { ok: false, message: `ideal-state gate install: ${file} already exists and is not the gate's; it is left as it is. Make it run \`${command}\`, or remove it and install again.` };
      const after = adapter.hookFile!(command, { timeoutSeconds: HOOK_TIMEOUT_SECONDS, ...(maxBlocks !== undefined ? { maxBlocks: Number(maxBlocks) } : {}) });
      return { ok: true, change: { relative: file, before, after } };
    }
  }
}
