import * as os from 'node:os';
import * as path from 'node:path';
import { readRegularFile } from '../../../verify/safe-read';
import type { HostAdapter } from '../hosts';
import type { HostFindings } from './findings';
import { isGateCommand, readSettingsFile, writableByThisUser, type SettingsRead } from './settings-file';

/**
 * The configuration layers outside the workspace that Codex, Gemini CLI and Qwen Code read hooks
 * from, and the keys in any layer that switch a hook off. All three read them at start-up, so
 * what the doctor reads is what the next session runs.
 *
 * - Codex 0.171.0 (measured by the hosts tier's probes): `$CODEX_HOME/hooks.json` (default
 *   ~/.codex) runs beside a project's `.codex/hooks.json`; `[features] codex_hooks = false` (or
 *   its new name `hooks`) in a trusted project's `.codex/config.toml` turns every hook off,
 *   the user's included.
 * - Gemini CLI 0.61.0 (its settings schema and hook registry in the bundle): hooks from the
 *   system, user and project settings run together; `hooksConfig.enabled: false` turns them all
 *   off, `hooksConfig.disabled` names commands that do not run; project settings win over user.
 * - Qwen Code 0.24.4 (its settings schema): `disableAllHooks` of the merged settings turns every
 *   hook off; `stopHookBlockingCap` caps how often a Stop hook may block.
 */
export interface HostLayer {
  scope: 'system' | 'workspace' | 'user';
  file: string;
  shown: string;
}

function home(env: NodeJS.ProcessEnv): string {
  return env.HOME && path.isAbsolute(env.HOME) ? env.HOME : os.homedir();
}

/** The layers beyond the workspace's own file, highest precedence first; empty for a host whose other layers are not read. */
export function extraLayers(adapter: HostAdapter, env: NodeJS.ProcessEnv): HostLayer[] {
  const h = home(env);
  switch (adapter.id) {
    case 'codex': {
      const codexHome = env.CODEX_HOME && path.isAbsolute(env.CODEX_HOME) ? env.CODEX_HOME : path.join(h, '.codex');
      return [{ scope: 'user', file: path.join(codexHome, 'hooks.json'), shown: env.CODEX_HOME ? path.join(codexHome, 'hooks.json') : '~/.codex/hooks.json' }];
    }
    case 'gemini': {
      const system = env.GEMINI_CLI_SYSTEM_SETTINGS_PATH && path.isAbsolute(env.GEMINI_CLI_SYSTEM_SETTINGS_PATH) ? env.GEMINI_CLI_SYSTEM_SETTINGS_PATH : '/etc/gemini-cli/settings.json';
      return [
        { scope: 'system', file: system, shown: system },
        { scope: 'user', file: path.join(h, '.gemini', 'settings.json'), shown: '~/.gemini/settings.json' },
      ];
    }
    case 'qwen': {
      const system = env.QWEN_CODE_SYSTEM_SETTINGS_PATH && path.isAbsolute(env.QWEN_CODE_SYSTEM_SETTINGS_PATH) ? env.QWEN_CODE_SYSTEM_SETTINGS_PATH : '/etc/qwen-code/settings.json';
      return [
        { scope: 'system', file: system, shown: system },
        { scope: 'user', file: path.join(h, '.qwen', 'settings.json'), shown: '~/.qwen/settings.json' },
      ];
    }
    default:
      return [];
  }
}

export interface LayerRead {
  layer: HostLayer;
  read: SettingsRead;
}

/** A `[features]` key set to false in a Codex config.toml (the table, or a dotted key). */
function codexFeatureOff(text: string): string | undefined {
  let table = '';
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*$/, '').trim();
    const header = /^\[\s*([^\]]+?)\s*\]$/.exec(line);
    if (header) {
      table = header[1]!;
      continue;
    }
    const m = /^([A-Za-z0-9_."-]+)\s*=\s*false$/.exec(line);
    if (!m) continue;
    const key = table === '' ? m[1]! : `${table}.${m[1]!}`;
    if (/^features\.(codex_hooks|hooks)$/.test(key.replace(/"/g, ''))) return key;
  }
  return undefined;
}

/**
 * What in the host's layers keeps the gate from running, and which layer the agent could use
 * to do so. `reads` holds the workspace's file and the extra layers, highest precedence first;
 * `gate` is the command line found (undefined: none).
 */
export async function layerSwitches(adapter: HostAdapter, workspace: string, env: NodeJS.ProcessEnv, reads: LayerRead[], gate: { command: string; scope: HostLayer['scope'] } | undefined, findings: HostFindings): Promise<void> {
  const settings = (r: LayerRead) => (r.read.state === 'read' ? r.read.settings : undefined);
  if (adapter.id === 'codex') {
    const codexHome = path.dirname(extraLayers(adapter, env)[0]!.file);
    for (const [file, shown] of [[path.join(workspace, '.codex', 'config.toml'), '.codex/config.toml'], [path.join(codexHome, 'config.toml'), `${codexHome === path.join(home(env), '.codex') ? '~/.codex' : codexHome}/config.toml`]] as const) {
      const r = await readRegularFile(file, { shown });
      if (!r.ok) continue;
      const off = codexFeatureOff(r.bytes.toString('utf8'));
      if (off) findings.neverRuns.push(`${off} = false in ${shown} turns Codex's hooks off`);
    }
    if (gate?.scope === 'user') findings.bypasses.push(`a \`[features] codex_hooks = false\` in the workspace's .codex/config.toml turns this user-level gate off from the next session: run Codex with its workspace-write sandbox (\`sandbox_mode = "workspace-write"\` in ~/.codex/config.toml), which keeps the agent's commands off .codex/`);
  }
  if (adapter.id === 'gemini') {
    // The highest layer that says `hooksConfig.enabled` decides it (system over workspace over user).
    const order = ['system', 'workspace', 'user'];
    const sayers = reads.filter((r) => typeof (settings(r)?.hooksConfig as Record<string, unknown> | undefined)?.enabled === 'boolean').sort((a, b) => order.indexOf(a.layer.scope) - order.indexOf(b.layer.scope));
    const decider = sayers[0];
    if (decider && (settings(decider)!.hooksConfig as Record<string, unknown>).enabled === false) findings.neverRuns.push(`hooksConfig.enabled: false in ${decider.layer.shown} turns Gemini CLI's hooks off`);
    for (const r of reads) {
      const disabled = (settings(r)?.hooksConfig as Record<string, unknown> | undefined)?.disabled;
      if (gate && Array.isArray(disabled) && disabled.some((d) => typeof d === 'string' && (d === gate.command || isGateCommand(d, adapter.id)))) findings.neverRuns.push(`hooksConfig.disabled in ${r.layer.shown} names the gate`);
    }
    if (gate && gate.scope !== 'workspace') findings.bypasses.push('.gemini/settings.json is in the workspace: a `hooksConfig.enabled: false` (or the gate in `hooksConfig.disabled`) written there turns this gate off from the next session');
  }
  if (adapter.id === 'qwen') {
    const order = ['system', 'workspace', 'user'];
    const sayers = reads.filter((r) => typeof settings(r)?.disableAllHooks === 'boolean').sort((a, b) => order.indexOf(a.layer.scope) - order.indexOf(b.layer.scope));
    if (sayers[0] && settings(sayers[0])!.disableAllHooks === true) findings.neverRuns.push(`disableAllHooks in ${sayers[0].layer.shown} turns Qwen Code's hooks off`);
    for (const r of reads) {
      const cap = settings(r)?.stopHookBlockingCap;
      if (typeof cap === 'number') findings.notes.push(`stopHookBlockingCap: ${cap} in ${r.layer.shown}: Qwen Code lets the agent stop after that many blocks, whatever the gate's --max-blocks`);
    }
    if (gate && gate.scope !== 'workspace') findings.bypasses.push('.qwen/settings.json is in the workspace: a `disableAllHooks: true` written there turns this gate off from the next session');
  }
  for (const r of reads) {
    if (r.layer.scope === 'user' && gate?.scope === 'user' && (await writableByThisUser(r.layer.file))) findings.bypasses.push(`${r.layer.shown} is writable by this user, who runs the agent: only the host's sandbox keeps the agent's commands off it`);
  }
}

export async function readLayers(layers: HostLayer[]): Promise<LayerRead[]> {
  return Promise.all(layers.map(async (layer) => ({ layer, read: await readSettingsFile(layer.file, layer.shown) })));
}
