import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { isLoaderVariable } from '../../../verify/secret-env';
import { claudeConfigDir, claudeManagedDir } from '../hosts/claude-settings';
import { STATE_DIR_ENV, stateRootFor } from '../state-folder';
import { inheritedLoaders, programBypasses, shellWords, type HostFindings } from './findings';
import { hooksOn, isGateCommand, readSettingsFile, writableByThisUser, type HookEntry, type SettingsRead } from './settings-file';

/**
 * Claude Code's effective hook configuration, read as Claude Code reads it
 * (https://code.claude.com/docs/en/settings, /hooks): settings layers from the highest
 * precedence down — managed, the command line's --settings (not on disk, so not seen here),
 * .claude/settings.local.json, .claude/settings.json, ~/.claude/settings.json. Hooks of every
 * layer are merged. `disableAllHooks: true` in managed settings turns every hook off; in any
 * other layer it turns off every hook but the managed ones; `allowManagedHooksOnly` in managed
 * settings runs only the managed ones. `env` in a layer is the environment of every hook, the
 * higher layer winning a name. Claude Code reloads these files mid-session, so a layer the agent
 * can write is a way to switch the gate off between two stops.
 */
export interface ClaudeLayer {
  scope: 'managed' | 'local' | 'project' | 'user';
  file: string;
  /** As shown to the person. */
  shown: string;
}

export function claudeCodeLayers(workspace: string, home: string, platform: NodeJS.Platform = process.platform, configDir?: string): ClaudeLayer[] {
  const managed = path.join(claudeManagedDir(platform), 'managed-settings.json');
  const user = configDir ? path.join(configDir, 'settings.json') : path.join(home, '.claude', 'settings.json');
  return [
    { scope: 'managed', file: managed, shown: managed },
    { scope: 'local', file: path.join(workspace, '.claude', 'settings.local.json'), shown: '.claude/settings.local.json' },
    { scope: 'project', file: path.join(workspace, '.claude', 'settings.json'), shown: '.claude/settings.json' },
    { scope: 'user', file: user, shown: configDir ? user : '~/.claude/settings.json' },
  ];
}

/** The drop-ins of managed-settings.d beside the managed file (`gate install --scope managed` writes one), each a managed layer. */
async function managedDropIns(managedFile: string): Promise<ClaudeLayer[]> {
  const folder = path.join(path.dirname(managedFile), 'managed-settings.d');
  const names = await fs.readdir(folder).catch(() => [] as string[]);
  return names.filter((n) => n.endsWith('.json')).sort().map((n) => ({ scope: 'managed' as const, file: path.join(folder, n), shown: path.join(folder, n) }));
}

/** The variables an `env` in the settings can use to reach the gate or its checks. */
function touchesGate(name: string): boolean {
  return name === 'PATH' || name === STATE_DIR_ENV || name === 'XDG_STATE_HOME' || isLoaderVariable(name);
}

type Read = { layer: ClaudeLayer; read: SettingsRead };

export interface ClaudeReadOptions {
  /** The home folder whose ~/.claude is read (HOME from the environment). */
  home?: string;
  /** The managed settings file (tests point it at a folder of theirs). */
  managedFile?: string;
  /** The environment Claude Code itself runs in. */
  env?: NodeJS.ProcessEnv;
}

/** Whether Claude Code would run the gate on a stop, in what environment, and what gets around it. */
export async function readClaudeCode(workspace: string, options: ClaudeReadOptions = {}): Promise<HostFindings | undefined> {
  const baseEnv = options.env ?? process.env;
  const home = options.home ?? baseEnv.HOME ?? os.homedir();
  // CLAUDE_CONFIG_DIR moves the user layer (and nothing else) in Claude Code 2.1.332.
  const configDir = baseEnv.CLAUDE_CONFIG_DIR && path.isAbsolute(baseEnv.CLAUDE_CONFIG_DIR) ? claudeConfigDir(baseEnv) : undefined;
  const base = claudeCodeLayers(workspace, home, process.platform, configDir).map((l) => (l.scope === 'managed' && options.managedFile ? { ...l, file: options.managedFile, shown: options.managedFile } : l));
  const layers = [base[0]!, ...(await managedDropIns(base[0]!.file)), ...base.slice(1)];
  const reads: Read[] = await Promise.all(layers.map(async (layer) => ({ layer, read: await readSettingsFile(layer.file, layer.shown) })));
  const settingsOf = (r: Read) => (r.read.state === 'read' ? r.read.settings : undefined);
  const mentions = reads.filter((r) => mentionsGate(r));
  if (mentions.length === 0) return undefined;

  const findings: HostFindings = { neverRuns: [], env: {}, notes: [], bypasses: [] };
  for (const r of reads) if (r.read.state === 'refused') findings.notes.push(`${r.read.problem}: Claude Code may refuse it`);

  const managed = reads.find((r) => r.layer.scope === 'managed')!;
  // Managed settings merge: a key in the file or any drop-in is policy.
  const policy: Record<string, unknown> = Object.assign({}, ...reads.filter((r) => r.layer.scope === 'managed').map((r) => settingsOf(r) ?? {}));
  const stops: (HookEntry & { scope: ClaudeLayer['scope'] })[] = reads.flatMap((r) => {
    const s = settingsOf(r);
    return s ? hooksOn(s, 'Stop', 'groups', r.layer.shown).map((h) => ({ ...h, scope: r.layer.scope })) : [];
  });
  // A gate in user or managed settings runs in every project: only one naming this workspace (or none) holds it here.
  const gates = stops.filter((h) => isGateCommand(h.command, 'claude-code'));
  const here = gates.filter((h) => holdsWorkspace(h.command!, workspace));
  const gate = here.find((h) => h.scope === 'managed') ?? here[0];
  const disabling = reads.filter((r) => r.layer.scope !== 'managed' && settingsOf(r)?.disableAllHooks === true);

  if (policy.disableAllHooks === true) findings.neverRuns.push(`disableAllHooks in ${managed.layer.shown} turns every hook off`);
  if (!gate && gates.length > 0) {
    findings.neverRuns.push(`the gate in ${gates.map((h) => h.from).join(', ')} holds ${[...new Set(gates.map((h) => workspaceOf(h.command!)))].join(', ')}, not this workspace`);
  } else if (!gate) {
    const elsewhere = reads.flatMap((r) => misplacedKeys(r));
    findings.neverRuns.push(`no hooks.Stop entry in any settings layer runs the gate${elsewhere.length > 0 ? ` (it is under ${elsewhere.join(', ')}, a key Claude Code does not read as Stop)` : ''}`);
  } else {
    findings.command = gate.command;
    findings.installedIn = gate.from;
    if (gate.scope !== 'managed' && policy.allowManagedHooksOnly === true) findings.neverRuns.push(`allowManagedHooksOnly in ${managed.layer.shown}: only managed hooks run, and the gate is in ${gate.from}`);
    if (gate.scope !== 'managed') for (const r of disabling) findings.neverRuns.push(`disableAllHooks in ${r.layer.shown}`);
  }

  // Every other hook Claude Code runs on Stop: any one answering {"continue": false} ends the
  // session whatever the gate answers (and hooks run side by side, so the gate cannot see it).
  const running = stops.filter((h) => !isGateCommand(h.command, 'claude-code') && (h.scope === 'managed' || (policy.allowManagedHooksOnly !== true && disabling.length === 0)));
  for (const h of running) {
    const what = h.command !== undefined ? `\`${h.command}\`` : `a ${h.type} hook`;
    findings.notes.push(`another Stop hook: ${what} (${h.from})`);
    if (h.type === 'command' || h.type === 'http') {
      const says = h.command !== undefined && /continue\W{0,4}\s*:\s*false|approve/.test(h.command) ? ', and its command line answers so' : '';
      findings.bypasses.push(`the Stop hook ${what} in ${h.from} runs beside the gate: an answer of {"continue": false} or "decision": "approve" from it lets the agent stop whatever the gate says${says}`);
    }
  }

  // The environment Claude Code gives the hook: its own, then each layer's `env`, higher layers winning.
  const env: NodeJS.ProcessEnv = { ...baseEnv, CLAUDE_PROJECT_DIR: workspace };
  const setBy = new Map<string, string>();
  for (const r of [...reads].reverse()) {
    const e = settingsOf(r)?.env;
    if (typeof e !== 'object' || e === null || Array.isArray(e)) continue;
    for (const [name, value] of Object.entries(e as Record<string, unknown>)) {
      if (typeof value !== 'string') continue;
      env[name] = value;
      setBy.set(name, r.layer.shown);
    }
  }
  findings.env = env;
  await envFindings(workspace, baseEnv, env, setBy, findings);
  findings.bypasses.push(...inheritedLoaders(baseEnv, 'Claude Code'));

  if (findings.command) findings.bypasses.push(...(await programBypasses(findings.command, workspace, setBy.has('PATH') ? `env.PATH in ${setBy.get('PATH')}` : undefined, env.PATH ?? '')));
  await layerBypasses(reads, gate?.scope, findings);
  return findings;
}

/** The `env` names that reach the gate or its checks, each said to be a way around it or harmless, and why. */
async function envFindings(workspace: string, before: NodeJS.ProcessEnv, env: NodeJS.ProcessEnv, setBy: Map<string, string>, findings: HostFindings): Promise<void> {
  const root = await stateRootFor(workspace, env);
  const without = await stateRootFor(workspace, before);
  for (const [name, from] of [...setBy].sort()) {
    if (!touchesGate(name)) continue;
    const at = `env.${name} in ${from}`;
    if (name === 'PATH') findings.bypasses.push(`${at}: every program a check names without a path (npm, node, git, …) is looked up there first, so a program the agent put there answers for it`);
    else if (name === STATE_DIR_ENV || name === 'XDG_STATE_HOME') {
      // A refused variable (inside the workspace, or set by a workspace settings file, as this one
      // may be) makes the gate block every stop with the refusal (state-refused.ts): not a way
      // around it, but a stop that never goes through until it is removed. One the gate takes
      // moves where the person's lock is looked for.
      const refused = root.refused.find((r) => r.startsWith(`${name} (`));
      if (refused) findings.notes.push(`${at} is refused by the gate (${refused.replace(/^\S+ \([^)]*\) /, '').replace(/; the gate ignores it.*$/, '')}): every stop is blocked, saying so, until it is removed`);
      else if (root.root === without.root) findings.notes.push(`${at} is harmless here: the gate's state folder stays ${root.root}`);
      else findings.bypasses.push(`${at} moves the gate's state folder (the person's lock and the block counters) to ${root.root}, not ${without.root}, where the person's lock is`);
    } else if (name === 'NODE_OPTIONS') {
      if (/(^|\s)(-r|--require|--import|--loader|--experimental-loader)(\s|=|$)/.test(env[name] ?? '')) findings.bypasses.push(`${at}: Node loads what it names into the gate itself before the gate can drop it`);
      else findings.notes.push(`${at} is harmless: it loads no code, and the checks run without it`);
    } else if (['LD_PRELOAD', 'LD_AUDIT', 'DYLD_INSERT_LIBRARIES'].includes(name)) findings.bypasses.push(`${at}: the system loads what it names into the gate's Node before the gate starts`);
    else if (name === 'BASH_ENV') findings.bypasses.push(`${at}: a bash that starts the hook runs that file before the gate`);
    else findings.notes.push(`${at} is harmless: the gate is started by absolute paths and its checks run without it`);
  }
}

/**
 * Each layer the agent can write: Claude Code reloads it mid-session, so it can switch the gate
 * off. Measured with Claude Code 2.1.332 (test/hosts/attacks.test.mjs): a disableAllHooks the
 * agent writes into .claude/settings.local.json with a program of its shell turns a user-level
 * gate off too; only a managed one keeps running, or Claude Code's sandbox keeping the shell off
 * those files.
 */
async function layerBypasses(reads: Read[], gateScope: ClaudeLayer['scope'] | undefined, findings: HostFindings): Promise<void> {
  if (gateScope === 'managed') return;
  const workspaceLayers = reads.filter((r) => r.layer.scope === 'local' || r.layer.scope === 'project').map((r) => r.layer.shown);
  const user = reads.find((r) => r.layer.scope === 'user')!;
  const userSettings = user.read.state === 'read' ? user.read.settings : {};
  const sandbox = userSettings.sandbox as { enabled?: unknown } | undefined;
  const sandboxed = typeof sandbox === 'object' && sandbox !== null && sandbox.enabled === true;
  if (gateScope === 'user') {
    findings.bypasses.push(
      `${workspaceLayers.join(' and ')} are in the workspace, writable by a program the agent's shell runs${sandboxed ? ' unless Claude Code\'s sandbox holds (it needs bubblewrap and socat on Linux)' : ' (Claude Code\'s sandbox is off)'}: a "disableAllHooks": true written there turns this user-level gate off mid-session. \`ideal-state gate install claude-code --scope managed\` puts the gate where no workspace setting turns it off`,
    );
  } else {
    findings.bypasses.push(
      `${workspaceLayers.join(' and ')} are in the workspace, writable by the agent; Claude Code reloads its settings mid-session, so a disableAllHooks, a renamed Stop key or an env written there turns the gate off or re-points it: \`ideal-state gate install claude-code --scope managed\` (or --scope user, which a disableAllHooks there still turns off)`,
    );
  }
  if (await writableByThisUser(user.layer.file)) findings.bypasses.push(`${user.layer.shown} is writable by this user, who runs the agent: only a permission rule or sandbox that denies the agent edits to it keeps it out of reach`);
}

/** Whether a layer holds the gate's command line anywhere (a file that does not parse: in its text). */
function mentionsGate(r: Read): boolean {
  if (r.read.state === 'refused') return r.read.text !== undefined && /gate --host claude-code\b/.test(r.read.text);
  if (r.read.state !== 'read') return false;
  return JSON.stringify(r.read.settings).includes('--host claude-code');
}

/** `hooks.<key>` entries that run the gate's stop command under a key other than Stop (e.g. "Stop_"). */
function misplacedKeys(r: Read): string[] {
  if (r.read.state !== 'read') return [];
  const hooks = r.read.settings.hooks;
  if (typeof hooks !== 'object' || hooks === null) return [];
  return Object.keys(hooks)
    .filter((k) => !['Stop', 'SubagentStop', 'UserPromptSubmit'].includes(k) && hooksOn(r.read.state === 'read' ? r.read.settings : {}, k, 'groups', '').some((h) => isGateCommand(h.command, 'claude-code')))
    .map((k) => `hooks.${JSON.stringify(k)} in ${r.layer.shown}`);
}

/** The folder a gate command line holds (`--workspace DIR`; without it, the hook's working folder, the project). */
function workspaceOf(command: string): string | undefined {
  const words = shellWords(command);
  const at = words.indexOf('--workspace');
  return at >= 0 ? words[at + 1] : undefined;
}

function holdsWorkspace(command: string, workspace: string): boolean {
  const named = workspaceOf(command);
  return named === undefined || path.resolve(named) === path.resolve(workspace);
}
