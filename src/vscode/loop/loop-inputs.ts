import * as vscode from 'vscode';
import { pickEffort } from '../effort-pick';
import type { EffortLevel, EffortTable, IscDefinition } from '../../model';
import type { IscRegistry } from '../../model/isc-registry';
import { engine } from '../engine';
import { agentsProblem, globProblem } from './loop-inputs-rules';

/** What "Run Algorithm over Files…" asks for; also its automation arguments (each one given skips its prompt). */
export interface LoopInputs {
  glob: string;
  /** The ISC template's artifact type (docs.page, …). */
  isc: string;
  effort: EffortLevel;
  agents: number;
  maxIterations?: number;
}

export const DEFAULT_GLOB = 'docs/**/*.md';
/** A prompt's answer was refused; the message says what is wrong and what to do. */
export class LoopInputRefused extends Error {
  override readonly name = 'LoopInputRefused';
  readonly code = 'loop-input';
}

/**
 * How many files the loop will run over: the engine's own list (listArtifacts, the same matcher
 * and excludes; `.ideal-state/**` never an artifact), so the box never counts a different set
 * than the loop runs. A glob the engine refuses gives its message.
 */
export async function countMatches(glob: string, token?: vscode.CancellationToken): Promise<number | { refused: string }> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) return 0;
  const stop = new AbortController();
  const listening = token?.onCancellationRequested(() => stop.abort());
  try {
    return (await engine().listArtifacts(folder.uri.fsPath, glob.trim(), { signal: stop.signal })).length;
  } catch (error) {
    if ((error as { code?: unknown }).code === 'LOOP_BAD_INPUT') return { refused: (error as Error).message.replace(/^--glob:? ?/, '') };
    throw error;
  } finally {
    listening?.dispose();
  }
}

/** The glob box's words for a count (the engine's own list of artifacts). */
export function countMessage(glob: string, n: number | { refused: string }): { message: string; ok: boolean } {
  if (typeof n !== 'number') return { message: n.refused, ok: false };
  if (n === 0) return { message: `No workspace file matches "${glob.trim()}"; try e.g. docs/**/*.md or src/**/*.ts`, ok: false };
  return { message: `${n} ${n === 1 ? 'file matches' : 'files match'}: the loop runs ${n === 1 ? 'it' : 'these'}`, ok: true };
}

/** Asks for what was not given; undefined when a prompt was cancelled (Escape). */
export async function askLoopInputs(given: Partial<LoopInputs>, table: EffortTable, isc: IscRegistry): Promise<LoopInputs | undefined> {
  const glob = given.glob ?? (await askGlob());
  if (glob === undefined) return undefined;
  const template = given.isc ?? (await askTemplate(isc));
  if (template === undefined) return undefined;
  if (!isc.get(template)) throw new LoopInputRefused(`There is no ISC template "${template}"; "Ideal State: List ISC Definitions" shows the ones there are.`);
  const effort = given.effort ?? (await askEffort(table));
  if (effort === undefined) return undefined;
  const parallelism = table.levels[effort].parallelism;
  const agents = given.agents ?? (await askAgents(effort, parallelism));
  if (agents === undefined) return undefined;
  const refused = globProblem(glob) ?? agentsProblem(String(agents), effort, parallelism);
  if (refused) throw new LoopInputRefused(refused);
  return { glob: glob.trim(), isc: template, effort, agents, ...(given.maxIterations ? { maxIterations: given.maxIterations } : {}) };
}

async function askGlob(): Promise<string | undefined> {
  const glob = await vscode.window.showInputBox({
    title: 'Ideal State: Run Algorithm over Files — which files',
    prompt: 'A glob of workspace files; each file is one artifact the loop verifies and works',
    value: DEFAULT_GLOB,
    ignoreFocusOut: true,
    validateInput: async (value) => {
      const problem = globProblem(value);
      if (problem) return problem;
      const said = countMessage(value, await countMatches(value));
      return said.ok ? { message: said.message, severity: vscode.InputBoxValidationSeverity.Info } : said.message;
    },
  });
  return glob?.trim() || undefined;
}

async function askTemplate(isc: IscRegistry): Promise<string | undefined> {
  const items = isc.list().map(({ definition: d, origin }: { definition: IscDefinition; origin: string }) => ({
    label: d.artifactType,
    description: `${origin === 'workspace' ? 'workspace' : 'shipped'} · ${d.idealCriteria.length} criteria · ${d.antiCriteria.length} anti-criteria`,
    detail: d.description,
    type: d.artifactType,
  }));
  if (items.length === 0) throw new LoopInputRefused('No ISC template is loaded; "Ideal State: List ISC Definitions" shows why.');
  const picked = await vscode.window.showQuickPick(items, { title: 'Ideal State: Run Algorithm over Files — ISC template', placeHolder: 'Which criteria must every file meet?', ignoreFocusOut: true, matchOnDetail: true });
  return picked?.type;
}

async function askEffort(table: EffortTable): Promise<EffortLevel | undefined> {
  const items = engine().EFFORT_LEVELS.map((level) => {
    const s = table.levels[level];
    return { label: level, description: `${s.budgetSeconds} s per artifact · up to ${s.parallelism} parallel agent${s.parallelism === 1 ? '' : 's'}`, detail: s.description, level };
  });
  return pickEffort(items, { title: 'Ideal State: Run Algorithm over Files — effort level', placeholder: 'How much time, depth and parallelism may each artifact get?' });
}

async function askAgents(level: EffortLevel, parallelism: number): Promise<number | undefined> {
  const text = await vscode.window.showInputBox({
    title: `Ideal State: Run Algorithm over Files at ${level} — agents`,
    prompt: `How many artifacts are worked at once (1–${parallelism} at ${level})`,
    value: String(Math.min(4, parallelism)),
    ignoreFocusOut: true,
    validateInput: (value) => agentsProblem(value, level, parallelism),
  });
  return text === undefined ? undefined : Number(text.trim());
}
