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
/** How many matches are counted for the glob prompt; more are said as "N+". */
const COUNT_LIMIT = 10_000;

/** A prompt's answer was refused; the message says what is wrong and what to do. */
export class LoopInputRefused extends Error {
  override readonly name = 'LoopInputRefused';
  readonly code = 'loop-input';
}

/** How many workspace files a glob matches (files.exclude and search.exclude apply, as in Quick Open). */
export async function countMatches(glob: string, token?: vscode.CancellationToken): Promise<number> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) return 0;
  const found = await vscode.workspace.findFiles(new vscode.RelativePattern(folder, glob.trim()), '**/node_modules/**', COUNT_LIMIT, token);
  return found.length;
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
      const n = await countMatches(value);
      if (n === 0) return `No workspace file matches "${value.trim()}"; try e.g. docs/**/*.md or src/**/*.ts`;
      return { message: `${n >= COUNT_LIMIT ? `${COUNT_LIMIT}+` : n} ${n === 1 ? 'file matches' : 'files match'}`, severity: vscode.InputBoxValidationSeverity.Info };
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
