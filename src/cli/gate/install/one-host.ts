import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { lineDiff } from '../../../agent/line-diff';
import type { HostAdapter } from '../../../app/gate/hosts';
import { gateStateFolder } from '../../../app/gate/state-folder';
import type { CliIo } from '../../shared/io';
import { isObject, mergeJson, type Planned } from './json';
import { splitLauncher } from './launcher';
import { gateCommandLine, HOOK_TIMEOUT_SECONDS, OURS, planInstall, timeoutIn } from './plan';
import { denyRules, hostUserTarget, onPath, planOutsideWorkspace, sandboxMissing, scopeTarget, workspaceRisk, type InstallScope } from './scope';
import { mergeTomlTable } from './toml';

export interface InstallOptions {
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

/**
 * One host's install: its hook (and MCP entry) planned where the scope says, the changes shown
 * as a diff, asked for (never written without a terminal or --yes), each file written whole,
 * then what the host now runs and what an agent could still do about it. The exit code: 0, 1
 * (not written), 2 (a file it cannot merge).
 */
export async function installOne(adapter: HostAdapter, options: InstallOptions, io: CliIo): Promise<number> {
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

async function writeAtomic(file: string, text: string, executable?: boolean): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.ideal-state-${process.pid}.tmp`;
  await fs.writeFile(tmp, text, { encoding: 'utf8', ...(executable ? { mode: 0o755 } : {}) });
  await fs.rename(tmp, file);
}
