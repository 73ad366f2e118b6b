import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { HostAdapter } from '../hosts';
import { readClaudeCode, type ClaudeReadOptions } from './claude-code';
import { inheritedLoaders, programBypasses, shellWords, type HostFindings } from './findings';
import { extraLayers, layerSwitches, type HostLayer, type LayerRead } from './host-layers';
import { hooksOn, isGateCommand, readSettingsFile, type HookEntry } from './settings-file';

/**
 * Each host's hook configuration as the host reads it: Claude Code with every settings layer
 * (claude-code.ts); the others from the file `gate install` wrote, under exactly the event key
 * the host reads (the first of the adapter's `install.events`, or Copilot's `agentStop`), never
 * the command string anywhere in the file. Undefined when the host's files do not name the gate.
 */
export async function readHostConfig(adapter: HostAdapter, workspace: string, options: ClaudeReadOptions = {}): Promise<HostFindings | undefined> {
  if (adapter.id === 'claude-code') return readClaudeCode(workspace, options);
  const install = adapter.install;
  if (install.kind === 'none') return undefined;
  const env = options.env ?? process.env;
  if (install.kind === 'own-file' && adapter.id !== 'copilot') return ownFile(adapter, workspace, install.file, env);
  const event = adapter.id === 'copilot' ? 'agentStop' : install.kind === 'own-file' ? '' : install.events[0]!;
  const shape = install.kind === 'matcher-groups' ? 'groups' : 'flat';
  // VS Code and Copilot CLI read every .json file in .github/hooks/, not only the one written.
  const files = install.file.startsWith('.github/hooks/') ? await jsonFilesIn(path.join(workspace, '.github', 'hooks')) : [install.file];
  // Codex, Gemini CLI and Qwen Code also read hooks from layers outside the workspace (host-layers.ts).
  const extra = extraLayers(adapter, env);
  const sources: HostLayer[] = [...files.map((file) => ({ scope: 'workspace' as const, file: path.join(workspace, ...file.split('/')), shown: file })), ...extra];
  const reads: LayerRead[] = [];
  const findings: HostFindings = { neverRuns: [], env, notes: [], bypasses: [] };
  const entries: HookEntry[] = [];
  const misplaced: string[] = [];
  let mentioned = false;
  for (const source of sources) {
    const file = source.shown;
    const read = await readSettingsFile(source.file, file);
    reads.push({ layer: source, read });
    if (read.state === 'absent') continue;
    if (read.state === 'refused') {
      findings.notes.push(read.problem);
      if (read.text?.includes(`--host ${adapter.id}`)) {
        mentioned = true;
        findings.neverRuns.push(`${file} names the gate but does not parse`);
      }
      continue;
    }
    if (!JSON.stringify(read.settings).includes(`--host ${adapter.id}`)) {
      entries.push(...hooksOn(read.settings, event, shape, file));
      continue;
    }
    mentioned = true;
    entries.push(...hooksOn(read.settings, event, shape, file));
    const hooks = read.settings.hooks;
    if (typeof hooks === 'object' && hooks !== null) {
      for (const key of Object.keys(hooks)) {
        if (key !== event && adapter.promptSubmitEvent !== key && !(install.kind !== 'own-file' && install.events.includes(key)) && hooksOn(read.settings, key, shape, file).some((h) => isGateCommand(h.command, adapter.id))) misplaced.push(`hooks.${JSON.stringify(key)} in ${file}`);
      }
    }
  }
  if (!mentioned) return undefined;
  const gates = entries.filter((h) => isGateCommand(h.command, adapter.id));
  // A gate outside the workspace holds this workspace only when it names it (or names none).
  const gate = gates.find((h) => holdsWorkspace(h.command!, workspace));
  if (!gate && gates.length > 0) findings.neverRuns.push(`the gate in ${gates.map((h) => h.from).join(', ')} holds another workspace`);
  if (gate) {
    findings.command = gate.command;
    findings.installedIn = gate.from;
    findings.bypasses.push(...(await programBypasses(gate.command!, workspace, undefined, findings.env.PATH ?? '')));
    findings.bypasses.push(...inheritedLoaders(env, adapter.name));
  } else if (findings.neverRuns.length === 0) {
    findings.neverRuns.push(`no hooks.${event} entry runs the gate, and ${adapter.name} reads hooks.${event}${misplaced.length > 0 ? ` (it is under ${misplaced.join(', ')})` : ''}`);
  }
  for (const h of entries) if (h !== gate && !isGateCommand(h.command, adapter.id)) findings.notes.push(`another ${event} hook: ${h.command !== undefined ? `\`${h.command}\`` : `a ${h.type} hook`} (${h.from})`);
  const gateScope = gate ? sources.find((s) => s.shown === gate.from)?.scope : undefined;
  await layerSwitches(adapter, workspace, env, reads, gate && gateScope ? { command: gate.command!, scope: gateScope } : undefined, findings);
  return findings;
}

/** A hook file of the host's own format (Kiro's hook, Cursor's hooks.json, opencode's plugin): the command line `gate install` wrote into it. */
async function ownFile(adapter: HostAdapter, workspace: string, file: string, env: NodeJS.ProcessEnv): Promise<HostFindings | undefined> {
  const read = await readSettingsFile(path.join(workspace, ...file.split('/')), file);
  const text = read.state === 'read' ? JSON.stringify(read.settings) : read.state === 'refused' ? (read.text ?? '') : '';
  const m =
    new RegExp(`"(?:command|bash)"\\s*:\\s*("(?:[^"\\\\]|\\\\.)*--host ${adapter.id}\\b(?:[^"\\\\]|\\\\.)*")`).exec(text) ??
    new RegExp(`const COMMAND = ("(?:[^"\\\\]|\\\\.)*--host ${adapter.id}\\b(?:[^"\\\\]|\\\\.)*")`).exec(text);
  // The gate's own file (opencode's plugin, Kiro's hook) there without the gate's command line: rewritten, and the host loads it as it is.
  if (!m && read.state !== 'absent' && path.basename(file).includes('ideal-state')) return { neverRuns: [`${file} no longer runs the gate: it is there without the gate's command line (rewritten since \`gate install\` wrote it), and ${adapter.name} loads it as it is at its next start`], env, notes: [], bypasses: [] };
  if (!m) return undefined;
  const command = JSON.parse(m[1]!) as string;
  if (!isGateCommand(command, adapter.id)) return undefined;
  const findings: HostFindings = { command, installedIn: file, neverRuns: [], env, notes: [], bypasses: await programBypasses(command, workspace, undefined) };
  // opencode's plugin is JavaScript, not JSON: its "does not parse" is no finding.
  if (read.state === 'refused' && file.endsWith('.json')) findings.notes.push(read.problem);
  if (adapter.id === 'kiro' && read.state === 'read' && read.settings.enabled === false) findings.neverRuns.push(`${file} has "enabled": false`);
  return findings;
}

async function jsonFilesIn(folder: string): Promise<string[]> {
  const names = await fs.readdir(folder).catch(() => [] as string[]);
  return names.filter((n) => n.endsWith('.json')).sort().map((n) => `.github/hooks/${n}`);
}

/** Whether a gate command line holds this workspace (`--workspace DIR`, or none: the host's project). */
function holdsWorkspace(command: string, workspace: string): boolean {
  const words = shellWords(command);
  const at = words.indexOf('--workspace');
  return at < 0 || words[at + 1] === undefined || path.resolve(words[at + 1]!) === path.resolve(workspace);
}
