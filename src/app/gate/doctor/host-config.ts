import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { HostAdapter } from '../hosts';
import { readClaudeCode, type ClaudeReadOptions } from './claude-code';
import { inheritedLoaders, programBypasses, type HostFindings } from './findings';
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
  const findings: HostFindings = { neverRuns: [], env, notes: [], bypasses: [] };
  const entries: HookEntry[] = [];
  const misplaced: string[] = [];
  let mentioned = false;
  for (const file of files) {
    const read = await readSettingsFile(path.join(workspace, ...file.split('/')), file);
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
  const gate = entries.find((h) => isGateCommand(h.command, adapter.id));
  if (gate) {
    findings.command = gate.command;
    findings.installedIn = gate.from;
    findings.bypasses.push(...(await programBypasses(gate.command!, workspace, undefined)));
    findings.bypasses.push(...inheritedLoaders(env, adapter.name));
  } else if (findings.neverRuns.length === 0) {
    findings.neverRuns.push(`no hooks.${event} entry runs the gate, and ${adapter.name} reads hooks.${event}${misplaced.length > 0 ? ` (it is under ${misplaced.join(', ')})` : ''}`);
  }
  for (const h of entries) if (h !== gate && !isGateCommand(h.command, adapter.id)) findings.notes.push(`another ${event} hook: ${h.command !== undefined ? `\`${h.command}\`` : `a ${h.type} hook`} (${h.from})`);
  return findings;
}

/** A hook file of the host's own format (Kiro's hook, Cursor's hooks.json, opencode's plugin): the command line `gate install` wrote into it. */
async function ownFile(adapter: HostAdapter, workspace: string, file: string, env: NodeJS.ProcessEnv): Promise<HostFindings | undefined> {
  const read = await readSettingsFile(path.join(workspace, ...file.split('/')), file);
  const text = read.state === 'read' ? JSON.stringify(read.settings) : read.state === 'refused' ? (read.text ?? '') : '';
  const m =
    new RegExp(`"(?:command|bash)"\\s*:\\s*("(?:[^"\\\\]|\\\\.)*--host ${adapter.id}\\b(?:[^"\\\\]|\\\\.)*")`).exec(text) ??
    new RegExp(`const COMMAND = ("(?:[^"\\\\]|\\\\.)*--host ${adapter.id}\\b(?:[^"\\\\]|\\\\.)*")`).exec(text);
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
