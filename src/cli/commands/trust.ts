import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { loadCapabilities, shippedCapabilities, WORKSPACE_CAPABILITIES_FILE } from '../../algorithm/capabilities';
import { loadPhaseGraph, WORKSPACE_PHASE_GRAPH_FILE } from '../../algorithm/phase-graph';
import { loadRoles, ROLE_IDS, shippedRoles } from '../../algorithm/roles';
import { formatProblem } from '../../model/data-file';
import { EFFORT_LEVELS } from '../../model';
import { SETTINGS } from '../../model/settings';
import { needsTrust, TRUST_GATED_FILES, trustStateOf, withoutTrust, withTrust, type TrustRecords } from '../../app/trust';
import { DEFAULT_KEY_ENV, isAllowedKeyEnv, parseLlmConfig } from '../../llm/config';
import { cliTrustFile, contentHash, readTrustRecords, writeTrustRecords } from '../../node/trust-store';
import { trustKey } from '../../node/workspace-config';

import { defineCommand } from '../shared/command';
import { FOLDER_OPTIONS } from '../shared/options';
import type { CliIo } from '../shared/io';
import { TRUST_USAGE } from '../shared/usage';

type Output = Pick<CliIo, 'out' | 'err'>;


const OPTIONS = {
  ...FOLDER_OPTIONS,
  list: { type: 'boolean', default: false },
  revoke: { type: 'boolean', default: false },
} as const;

const TRUST = defineCommand({ name: 'ideal-state', usage: TRUST_USAGE, options: OPTIONS });

/** `ideal-state trust …`; `argv` follows `trust`. */
export async function trustCommand(argv: string[], io: Output, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const parsed = TRUST.parse(argv, io);
  if (typeof parsed === 'number') return parsed;
  const { values: v, positionals } = parsed;
  if (v.list && (v.revoke || positionals.length > 0)) {
    io.err('ideal-state: trust --list takes no file and no --revoke');
    return 2;
  }
  const workspace = path.resolve(v.workspace ?? process.cwd());
  const file = cliTrustFile(env);
  let records: TrustRecords;
  try {
    records = await readTrustRecords(file);
  } catch (error) {
    io.err(`ideal-state: ${(error as Error).message}`);
    return 2;
  }
  if (v.list) return list(records, v.json, io);
  const relatives: string[] = [];
  for (const given of positionals) {
    const relative = path.relative(workspace, path.resolve(workspace, given)).split(path.sep).join('/');
    if (!needsTrust(relative)) {
      io.err(`ideal-state: ${given} is not a workspace configuration file that needs trust; those are (in ${workspace}): ${TRUST_GATED_FILES.join(', ')}`);
      return 2;
    }
    relatives.push(relative);
  }
  if (v.revoke) return revoke(records, file, workspace, relatives, v.json, io);
  return trust(records, file, workspace, relatives, v.json, io);
}

async function trust(records: TrustRecords, file: string, workspace: string, given: string[], json: boolean, io: Output): Promise<number> {
  const present = given.length > 0 ? given : (await Promise.all(TRUST_GATED_FILES.map(async (r) => ((await exists(workspace, r)) ? r : undefined)))).filter((r) => r !== undefined);
  if (present.length === 0) {
    io.err(`ideal-state: nothing to trust: ${workspace} has none of ${TRUST_GATED_FILES.join(', ')}`);
    if (json) io.out('[]');
    return 0;
  }
  const trusted: { file: string; path: string; sha256: string; names: string[] }[] = [];
  for (const relative of present) {
    let bytes: Buffer;
    try {
      bytes = await fs.readFile(path.join(workspace, ...relative.split('/')));
    } catch (error) {
      io.err(`ideal-state: cannot read ${relative} in ${workspace}: ${(error as Error).message}`);
      return 2;
    }
    const key = await trustKey(workspace, relative);
    const names = describeConfigFile(relative, bytes.toString('utf8'));
    records = withTrust(records, { file: key, sha256: contentHash(bytes), trustedAt: new Date().toISOString(), names });
    trusted.push({ file: relative, path: key, sha256: contentHash(bytes), names });
  }
  await writeTrustRecords(file, records);
  if (json) io.out(JSON.stringify(trusted));
  else {
    for (const t of trusted) {
      io.out(`trusted ${t.file}\n  sha256 ${t.sha256}`);
      for (const n of t.names) io.out(`  ${n}`);
    }
    io.out(`remembered in ${file}; a change to a file makes it untrusted again`);
  }
  return 0;
}

async function revoke(records: TrustRecords, file: string, workspace: string, given: string[], json: boolean, io: Output): Promise<number> {
  const keys = new Set(await Promise.all(given.map((r) => trustKey(workspace, r))));
  const root = await trustKey(workspace, '');
  const { records: kept, removed } = withoutTrust(records, (r) => (given.length > 0 ? keys.has(r.file) : r.file.startsWith(root + path.sep)));
  if (removed.length > 0) await writeTrustRecords(file, kept);
  if (json) io.out(JSON.stringify(removed.map((r) => r.file)));
  else io.out(removed.length > 0 ? removed.map((r) => `revoked ${r.file}`).join('\n') : `nothing to revoke for ${workspace}`);
  return 0;
}

async function list(records: TrustRecords, json: boolean, io: Output): Promise<number> {
  const rows = await Promise.all(
    records.records.map(async (r) => {
      const bytes = await fs.readFile(r.file).catch(() => undefined);
      const state = bytes === undefined ? 'missing' : trustStateOf(records, r.file, contentHash(bytes)) === 'trusted' ? 'trusted' : 'changed';
      return { ...r, state };
    }),
  );
  if (json) io.out(JSON.stringify(rows));
  else if (rows.length === 0) io.out('nothing is trusted');
  else
    for (const r of rows) {
      io.out(`${r.state.padEnd(8)} ${r.file}  sha256 ${r.sha256.slice(0, 16)}…  ${r.trustedAt}`);
      for (const n of r.names) io.out(`           ${n}`);
    }
  return 0;
}

/** What a configuration file names that matters for trust: where keys go, what the agent may do, what it is told. */
export function describeConfigFile(relative: string, text: string): string[] {
  if (relative === SETTINGS.modelsConfigFile.default) {
    const parsed = parseLlmConfig(relative, text);
    if (!parsed.ok) return parsed.problems.map((p) => `problem: ${formatProblem(p)}`);
    return parsed.value.providers.map((p) => {
      if (p.kind === 'scripted') return `provider ${p.id} (scripted): replays ${p.script}`;
      if (p.kind === 'vscode-lm') return `provider ${p.id} (vscode-lm): the editor's models`;
      const key = p.apiKeyEnv ?? DEFAULT_KEY_ENV[p.kind]!;
      const where = p.baseUrl ?? `the ${p.kind === 'openai' ? 'OpenAI' : 'Anthropic'} API`;
      return `provider ${p.id} (${p.kind}): ${where}, key from $${key}${isAllowedKeyEnv(key) ? '' : ' (a variable only a trusted file may name)'}${p.apiKeySecret ? `, secret "${p.apiKeySecret}" in the editor` : ''}`;
    });
  }
  if (relative === WORKSPACE_CAPABILITIES_FILE) {
    const loaded = loadCapabilities({ file: relative, text });
    if (loaded.problems.length > 0) return loaded.problems.map((p) => `problem: ${formatProblem(p)}`);
    const shipped = shippedCapabilities().levels;
    return EFFORT_LEVELS.flatMap((level) => {
      const mine = loaded.capabilities.levels[level];
      const added = mine.tools.filter((t) => !shipped[level].tools.includes(t));
      const frontier = (['manager', 'specialist', 'verifier'] as const).filter((r) => mine.models[r] === 'frontier' && shipped[level].models[r] !== 'frontier');
      return [
        ...(added.length > 0 ? [`${level}: adds the tools ${added.join(', ')}`] : []),
        ...(frontier.length > 0 ? [`${level}: ${frontier.join(', ')} on a frontier model (workspace text leaves this machine)`] : []),
        ...(mine.agentSteps !== shipped[level].agentSteps ? [`${level}: ${mine.agentSteps} agent steps`] : []),
      ];
    });
  }
  if (relative === WORKSPACE_PHASE_GRAPH_FILE) {
    const loaded = loadPhaseGraph({ file: relative, text });
    if (loaded.problems.length > 0) return loaded.problems.map((p) => `problem: ${formatProblem(p)}`);
    const nodes = Object.entries(loaded.graph.nodes);
    const ungated = nodes.filter(([, n]) => n?.gate === 'none').map(([phase]) => phase);
    return [`replaces the phase graph: ${nodes.length} nodes from ${loaded.graph.entry}${ungated.length > 0 ? `; no gate at ${ungated.join(', ')}` : ''}`];
  }
  const loaded = loadRoles([{ file: relative, text }]);
  if (loaded.problems.length > 0) return loaded.problems.map((p) => `problem: ${formatProblem(p)}`);
  // The file's `id`, not its name, says which role it replaces.
  return ROLE_IDS.filter((id) => loaded.roles[id] !== shippedRoles()[id]).map((id) => {
    const prompt = loaded.roles[id].system;
    return `replaces the ${id} role's prompt (${prompt.length} characters): "${prompt.split('\n')[0]!.slice(0, 80)}${prompt.length > 80 ? '…' : ''}"`;
  });
}

async function exists(workspace: string, relative: string): Promise<boolean> {
  return fs.stat(path.join(workspace, ...relative.split('/'))).then(
    (s) => s.isFile(),
    () => false,
  );
}
