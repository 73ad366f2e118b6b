// What the language-model tools and @ideal-state answer, as plain data and text: no vscode
// here, so the unit tier checks it in plain Node (test/unit/vscode/agents/lm-tools.test.ts).
// The answers' shapes and their builder are the done gate's (src/app/done-gate.ts), reached
// at run time through the engine bundle; only their types are needed here.
import type { CriterionRow, ProposedCriterion, ToolVerifyAnswer } from '../../app/done-gate';
import type { Priority } from '../../model';

/** A tool input the model got wrong: the message says which field and what is expected. */
export class ToolInputError extends Error {
  override readonly name = 'ToolInputError';
  readonly code = 'tool-input';
}

export interface CriteriaInput {
  /** Workspace-relative (or absolute inside the workspace) path of the PRD/ISA; the active editor's when left out. */
  readonly prd?: string;
}

export interface VerifyInput extends CriteriaInput {
  /** Criterion ids to verify; all when left out or empty. */
  readonly criteria?: readonly string[];
}

export interface ProposeInput extends CriteriaInput {
  readonly criteria: readonly ProposedCriterion[];
}

const PRIORITIES: readonly string[] = ['CRITICAL', 'IMPORTANT', 'NICE'];

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function prdOf(input: Record<string, unknown>): { prd?: string } {
  const prd = input['prd'];
  if (prd === undefined || prd === null || prd === '') return {};
  if (typeof prd !== 'string') throw new ToolInputError('prd must be a string: the path of a PRD or ISA inside the workspace');
  return { prd };
}

/** VS Code validates against the declared schema; these checks say exactly what is wrong when it did not (or a caller skipped it). */
export function criteriaInput(input: unknown): CriteriaInput {
  if (input === undefined || input === null) return {};
  if (!isRecord(input)) throw new ToolInputError('the input must be an object, e.g. { "prd": ".ideal-state/prds/PRD-x.md" }');
  return prdOf(input);
}

export function verifyInput(input: unknown): VerifyInput {
  const base = criteriaInput(input);
  const ids = isRecord(input) ? input['criteria'] : undefined;
  if (ids === undefined || ids === null) return base;
  if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string' || id.trim() === '')) throw new ToolInputError('criteria must be a list of criterion ids, e.g. ["ISC-1", "ISC-3"]');
  return ids.length > 0 ? { ...base, criteria: ids.map((id: string) => id.trim()) } : base;
}

export function proposeInput(input: unknown): ProposeInput {
  const base = criteriaInput(input);
  const list = isRecord(input) ? input['criteria'] : undefined;
  if (!Array.isArray(list) || list.length === 0) throw new ToolInputError('criteria must be a non-empty list of { "text": ..., "priority"?: ..., "verify"?: ... }');
  const criteria = list.map((c: unknown, i): ProposedCriterion => {
    if (!isRecord(c) || typeof c['text'] !== 'string' || c['text'].trim() === '') throw new ToolInputError(`criteria[${i}].text must be the criterion's sentence`);
    const priority = c['priority'];
    if (priority !== undefined && (typeof priority !== 'string' || !PRIORITIES.includes(priority))) throw new ToolInputError(`criteria[${i}].priority must be one of ${PRIORITIES.join(', ')}`);
    const verify = c['verify'];
    if (verify !== undefined && typeof verify !== 'string') throw new ToolInputError(`criteria[${i}].verify must be a string such as "CLI: npm test"`);
    const anti = c['anti'];
    if (anti !== undefined && typeof anti !== 'boolean') throw new ToolInputError(`criteria[${i}].anti must be true or false`);
    return { text: c['text'].trim(), ...(priority ? { priority: priority as Priority } : {}), ...(verify ? { verify } : {}), ...(anti !== undefined ? { anti } : {}) };
  });
  return { ...base, criteria };
}

/** A table cell: one line, no pipe that would split the row, not too long to read. */
export function cell(text: string, max = 160): string {
  const one = text.replace(/\s+/g, ' ').trim().replace(/\|/g, '\\|');
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

export function criteriaMarkdown(prd: string, rows: readonly CriterionRow[]): string {
  const lines = [`**${cell(prd)}** — ${rows.length} criteria`, '', '| Id | Priority | Criterion | Verify | Last outcome |', '|---|---|---|---|---|'];
  for (const r of rows) {
    const last = r.lastOutcome ? `${r.lastOutcome.outcome}${r.stale ? ' (stale)' : ''}` : 'not verified';
    lines.push(`| ${cell(r.id)} | ${r.priority} | ${r.kind === 'anti-criterion' ? 'Anti: ' : ''}${cell(r.text)} | ${cell(r.verify ?? 'judge')} | ${last} |`);
  }
  return lines.join('\n');
}

export function verifyMarkdown(answer: ToolVerifyAnswer): string {
  const verdict =
    answer.allCriticalPass === null
      ? 'NO VERDICT: only some criteria were verified and a CRITICAL one was not among them; verify them all before saying the work is done.'
      : answer.allCriticalPass
        ? 'Every CRITICAL criterion passes.'
        : 'NOT DONE: a CRITICAL criterion does not pass.';
  const lines = [`**${cell(answer.prd)}** — ${cell(answer.summary)}. ${verdict}`, '', '| Id | Priority | Outcome | Evidence | Repair |', '|---|---|---|---|---|'];
  for (const r of answer.results) lines.push(`| ${cell(r.id)} | ${r.priority} | ${r.outcome} | ${cell(r.evidence)} | ${cell(r.repairTarget ?? '')} |`);
  for (const s of answer.skippedCommands) lines.push('', `Not run: \`${cell(s.command)}\` (${cell(s.reason)})`);
  return lines.join('\n');
}

/** The confirmation before verifying: it names every command that will run, and what the allow-list does. */
export function verifyConfirmation(prd: string, ids: readonly string[], commands: readonly string[]): { title: string; message: string } {
  const which = ids.length > 0 ? `criteria ${ids.join(', ')} of ${prd}` : `every criterion of ${prd}`;
  const run =
    commands.length > 0
      ? ['These commands will run in the workspace:', ...commands.map((c) => `- \`${c.replace(/`/g, "'")}\``), '', 'A command not in `idealState.verify.allowedCommands` still asks for approval first.']
      : ['No command will run: the criteria are checked by reading files, searching, diagnostics or the judge.'];
  return { title: 'Verify criteria with Ideal State', message: [`Verify ${which}, write the outcomes into the PRD and store them.`, '', ...run].join('\n') };
}

/** The confirmation before adding criteria: the lines that will be added and the new criteria version. */
export function proposeConfirmation(prd: string, lines: readonly string[], version: number): { title: string; message: string } {
  return { title: 'Add criteria to the PRD', message: [`Add ${lines.length} criteri${lines.length === 1 ? 'on' : 'a'} to ${prd} as criteria version ${version}:`, '', ...lines.map((l) => `    ${l}`)].join('\n') };
}

/** What a chat request names: a `.md` path and criterion ids (e.g. `/verify docs/PRD-x.md ISC-1 ISC-3`). */
export function chatPrompt(prompt: string): VerifyInput {
  const words = prompt.split(/[\s,]+/).map((w) => w.replace(/^[`'"]+|[`'"]+$/g, '')).filter(Boolean);
  const prd = words.find((w) => /\.md$/i.test(w));
  const ids = words.filter((w) => w !== prd && /^(?:ISC-\d+(?:\.\d+)?|[A-Z]+-?\d+(?:\.\d+)?)$/.test(w));
  return { ...(prd ? { prd } : {}), ...(ids.length > 0 ? { criteria: ids } : {}) };
}

export interface McpLaunch {
  label: string;
  command: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * The bundled `ideal-state mcp` server for each workspace folder, run by the Node that runs
 * the extension host (in desktop VS Code that is Electron, which ELECTRON_RUN_AS_NODE turns
 * into plain Node; code-server's is Node already and ignores it).
 */
export function mcpLaunches(execPath: string, cliPath: string, folders: readonly { name: string; fsPath: string }[]): McpLaunch[] {
  return folders.map((f) => ({
    label: folders.length > 1 ? `Ideal State (${f.name})` : 'Ideal State',
    command: execPath,
    args: [cliPath, 'mcp', '--workspace', f.fsPath],
    env: { ELECTRON_RUN_AS_NODE: '1' },
  }));
}
