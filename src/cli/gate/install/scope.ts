import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { extraLayers } from '../../../app/gate/doctor/host-layers';
import type { HostAdapter } from '../../../app/gate/hosts';
import { claudeConfigDir, claudeManagedDir, managedDropIn } from '../../../app/gate/hosts/claude-settings';
import { isObject, listAt, mergeJson, putGroupedHook, runsGate, type Plan } from './json';

/**
 * Where the gate's hook can live, out of the agent's reach or not. `workspace`: the host's file in
 * the workspace, which the agent can write. `user`: Claude Code's user settings
 * (CLAUDE_CONFIG_DIR, else ~/.claude), outside the workspace. `managed`: a drop-in file in
 * Claude Code's managed settings folder (managed-settings.d), which only an administrator writes.
 *
 * Measured with Claude Code 2.1.332 driven by a scripted model (test/hosts/attacks.test.mjs, the
 * managed case with a drop-in the tier writes into /etc/claude-code as root and removes):
 * a `disableAllHooks: true` that the agent writes into .claude/settings.local.json with a program
 * of its shell (`node -e …`; its Write tool and a shell redirection to .claude/settings*.json are
 * held for a person's approval) turns a user-level Stop hook off mid-session, and the same key in
 * .claude/settings.json turns it off at start; a managed Stop hook runs in both cases, and after
 * a disableAllHooks in the user settings (Claude Code reads that key outside managed settings
 * as allowManagedHooksOnly). A rewritten
 * .claude/settings.json (`{}`) leaves a user-level hook running. Permission deny rules
 * (`Edit(//path/**)`) stop Claude Code's own file tools, not a program its shell runs; its sandbox
 * (sandbox.enabled) is what makes them hold for the shell too, and needs bubblewrap on Linux.
 */
export type InstallScope = 'workspace' | 'user' | 'managed';
export const INSTALL_SCOPES: readonly InstallScope[] = ['workspace', 'user', 'managed'];

/** The folder and file a scoped install writes, and how it is shown. */
export interface ScopeTarget {
  root: string;
  relative: string;
  shown: string;
}

/**
 * The hosts whose user layer `gate install --scope user` writes, and where (read by the doctor
 * from the same places, src/app/gate/doctor/host-layers.ts): Codex's `$CODEX_HOME/hooks.json`
 * (measured: a user-level Stop hook runs in Codex 0.171.0), Gemini CLI's and Qwen Code's user
 * settings. Only Claude Code has managed settings the gate is written to.
 */
export function scopesOf(hostId: string): InstallScope[] {
  if (hostId === 'claude-code') return ['workspace', 'user', 'managed'];
  return ['codex', 'gemini', 'qwen'].includes(hostId) ? ['workspace', 'user'] : ['workspace'];
}

/** Where `--scope user` writes a host's hook: the user layer the doctor reads too (one list, host-layers.ts). */
export function hostUserTarget(adapter: HostAdapter, env: NodeJS.ProcessEnv): ScopeTarget | undefined {
  const user = extraLayers(adapter, env).find((l) => l.scope === 'user');
  return user ? { root: path.dirname(user.file), relative: path.basename(user.file), shown: user.file } : undefined;
}

export function scopeTarget(scope: Exclude<InstallScope, 'workspace'>, workspace: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): ScopeTarget {
  if (scope === 'user') {
    const root = claudeConfigDir(env);
    return { root, relative: 'settings.json', shown: path.join(root, 'settings.json') };
  }
  const root = path.join(claudeManagedDir(platform), 'managed-settings.d');
  const relative = managedDropIn(workspace);
  return { root, relative, shown: path.join(root, relative) };
}

/**
 * The permission rules that keep Claude Code's own file tools (Edit, Write, NotebookEdit: Edit
 * rules cover them all) off what switches the gate off or re-points it: the workspace's
 * Claude Code settings files (not the rest of .claude/, where an honest agent writes its skills and
 * commands), the gate's state folder (the person's lock, the block counters) and the user
 * settings file. `//` starts an absolute path in a rule (https://code.claude.com/docs/en/permissions,
 * "Read & Edit"). Claude Code's sandbox merges Edit deny rules into its write restrictions, so
 * with sandbox.enabled they hold for the shell too.
 */
export function denyRules(workspace: string, stateFolder: string, userSettings: string): string[] {
  const abs = (p: string) => `//${path.resolve(p).replace(/\\/g, '/').replace(/^\/+/, '')}`;
  return [`Edit(${abs(path.join(workspace, '.claude', 'settings.json'))})`, `Edit(${abs(path.join(workspace, '.claude', 'settings.local.json'))})`, `Edit(${abs(stateFolder)}/**)`, `Edit(${abs(userSettings)})`];
}

/** Whether a gate command line holds this workspace (`--workspace DIR`). */
function holdsWorkspace(command: string, workspace: string): boolean {
  const m = /--workspace\s+('([^']|'\\'')*'|\S+)/.exec(command);
  if (!m) return false;
  const named = m[1]!.startsWith("'") ? m[1]!.slice(1, -1).replace(/'\\''/g, "'") : m[1]!;
  return path.resolve(named) === path.resolve(workspace);
}

/**
 * The host's hooks (its stop events and prompt event; Claude Code's Stop, SubagentStop and
 * UserPromptSubmit) merged into a settings file outside the workspace, with Claude Code's deny
 * rules and sandbox where given. A user or managed file holds gates for other workspaces too:
 * only the entry naming this workspace is updated.
 */
export async function planOutsideWorkspace(adapter: HostAdapter, target: ScopeTarget, workspace: string, command: string, timeout: number, deny: string[], ours: RegExp, sandbox = false): Promise<Plan> {
  const events = [...(adapter.install.kind === 'matcher-groups' ? adapter.install.events : []), ...(adapter.promptSubmitEvent ? [adapter.promptSubmitEvent] : [])];
  const plan = await mergeJson(target.root, target.relative, (root) => {
    for (const event of events) {
      const list = listAt(root, 'hooks', event);
      if (typeof list === 'string') return list;
      // A user or managed file holds gates for other workspaces too: only this workspace's is ours.
      putGroupedHook(list, { type: 'command', command, timeout }, (h) => runsGate(ours)(h) && holdsWorkspace((h as { command: string }).command, workspace));
    }
    if (deny.length === 0 && !sandbox) return undefined;
    const permissions = (root.permissions ??= {});
    if (!isObject(permissions)) return '"permissions" is not an object';
    const list = (permissions.deny ??= []);
    if (!Array.isArray(list)) return '"permissions.deny" is not a list';
    for (const rule of deny) if (!list.includes(rule)) list.push(rule);
    if (sandbox) {
      const box = (root.sandbox ??= {});
      if (!isObject(box)) return '"sandbox" is not an object';
      box.enabled = true;
    }
    return undefined;
  });
  if (!plan.ok) return { ok: false, message: plan.message.replace(target.relative, target.shown) };
  return { ok: true, change: { ...plan.change, root: target.root, shown: target.shown } };
}

/**
 * What an agent working in the workspace can do to a gate installed there, by host, said at
 * install time with the safer way. Claude Code's is measured (see above); the others keep their
 * hooks as they were at start-up (measured by test/hosts/attacks.test.mjs), so an edit holds
 * from the next session on.
 */
export function workspaceRisk(adapter: HostAdapter): string | undefined {
  const file = 'file' in adapter.install ? adapter.install.file : undefined;
  if (!file) return undefined;
  switch (adapter.id) {
    case 'claude-code':
      return `${file} is inside the workspace, and Claude Code reloads its settings mid-session: an agent that writes .claude/settings.local.json or .claude/settings.json with a program of its shell can add "disableAllHooks": true, rename the Stop key, or add a Stop hook answering {"continue": false}, and the gate never runs. Safer: \`ideal-state gate install claude-code --scope managed\` (managed settings, which no workspace setting turns off; needs administrator rights), else \`--scope user\` (outside the workspace, with deny rules for .claude/** and the gate's state folder; a "disableAllHooks" in the workspace's settings still turns it off, unless Claude Code's sandbox keeps the shell off .claude/).`;
    case 'codex':
      return `${file} is inside the workspace: Codex reads it at start-up, so an agent's edit counts from the next session (and an edited hook is no longer trusted, so Codex skips it without a word). Run Codex with its workspace-write sandbox (\`sandbox_mode = "workspace-write"\` in ~/.codex/config.toml, or \`codex --sandbox workspace-write\`): the agent's commands cannot write .codex/, .git or the gate's state folder outside the workspace. \`--scope user\` puts the hook in $CODEX_HOME/hooks.json instead (a \`[features] codex_hooks = false\` in .codex/config.toml still turns it off, which the sandbox keeps the agent from writing).`;
    case 'gemini':
    case 'qwen':
      return `${file} is inside the workspace: ${adapter.name} reads it at start-up, so an agent's edit counts from the next session; \`--scope user\` puts the hook in ~/.${adapter.id}/settings.json instead (a ${adapter.id === 'gemini' ? '`hooksConfig.enabled: false`' : '`disableAllHooks: true`'} in ${file} still turns it off). \`ideal-state gate doctor\` shows what the next session will run.`;
    case 'opencode':
      // Measured with opencode 1.18.33 (test/hosts/attacks.test.mjs): a plugin replaced mid-session leaves the loaded one running.
      return `${file} is inside the workspace: opencode loads it at start-up, so an agent's edit counts from the next session, and opencode has no sandbox to keep the agent off it: an agent that replaces or deletes the plugin has no gate from its next session on (\`gate install\` does not write opencode's global plugin folder, ~/.config/opencode/plugin/). \`ideal-state gate doctor\` shows what the next session will run.`;
    default:
      return `${file} is inside the workspace: ${adapter.name} reads it at start-up, so an agent's edit counts from the next session; \`ideal-state gate doctor\` shows what the next session will run.`;
  }
}

/**
 * Whether Claude Code's sandbox can run here: Seatbelt on macOS; bubblewrap and socat on Linux
 * (https://code.claude.com/docs/en/sandboxing, "Set up Linux and WSL2"); not on native Windows.
 * Without them Claude Code 2.1.332 prints "Sandbox disabled: … dependencies are missing" and runs
 * commands unsandboxed (measured).
 */
export function sandboxMissing(platform: NodeJS.Platform, onPath: (program: string) => boolean): string | undefined {
  if (platform === 'darwin') return undefined;
  if (platform === 'win32') return 'Claude Code has no sandbox on native Windows (only in WSL2)';
  const missing = ['bwrap', 'socat'].filter((p) => !onPath(p));
  return missing.length > 0 ? `${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} not installed (apt install bubblewrap socat): Claude Code would run commands unsandboxed, with a warning` : undefined;
}

export function onPath(program: string, env: NodeJS.ProcessEnv): boolean {
  return (env.PATH ?? '').split(path.delimiter).some((dir) => dir !== '' && path.isAbsolute(dir) && existsSync(path.join(dir, program)));
}
