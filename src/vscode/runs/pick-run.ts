import * as vscode from 'vscode';
import type { Run } from '../../model';
import { stateWords } from '../../model/run-states';
import type { RunsNode } from './runs-tree';

/** A run as a pick offers it: what the person reads to choose it. */
export interface RunChoice {
  readonly id: string;
  readonly request: string;
  readonly description: string;
  readonly detail?: string;
}

/** How a stored run is offered: its state, effort and iteration, its id and when it started. */
export function runChoice(run: Run): RunChoice {
  return { id: run.id, request: run.request, description: `${stateWords(run.state)} · ${run.effort} · ${run.phase} · iteration ${run.iteration}`, detail: `${run.id} · started ${run.createdAt.slice(0, 16).replace('T', ' ')}` };
}

/** For automation and tests: which run, and the answers the dialogs would ask for. */
export interface RunCommandArgs {
  runId: string;
  /** Export Run Bundle: the folder the bundle goes into (instead of the folder dialog). */
  folder?: string;
  /** Delete Run: the confirmation given — the run alone, or the run and its PRD file. */
  confirmed?: 'run' | 'run-and-prd';
}

/** A run id from a command argument: the id itself (palette, links, table), a Runs view node, or automation args. */
export function runIdOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg;
  if (typeof arg !== 'object' || arg === null) return undefined;
  if ((arg as RunsNode).kind === 'run') return (arg as Extract<RunsNode, { kind: 'run' }>).run.id;
  const runId = (arg as Partial<RunCommandArgs>).runId;
  return typeof runId === 'string' ? runId : undefined;
}

/** The answers automation gives in place of the dialogs (none from a Runs view item). */
export function automation(arg: unknown): Partial<RunCommandArgs> {
  return typeof arg === 'object' && arg !== null && (arg as RunsNode).kind === undefined ? (arg as Partial<RunCommandArgs>) : {};
}

/**
 * The run a command acts on: the one its argument names, else the person's pick among
 * `choices` (said `none` when there is nothing to pick). Every run command asks through this.
 */
export async function pickRun(title: string, arg: unknown, choices: () => readonly RunChoice[] | Promise<readonly RunChoice[]>, none: string): Promise<string | undefined> {
  const named = runIdOf(arg);
  if (named) return named;
  const offered = await choices();
  if (offered.length === 0) {
    void vscode.window.showInformationMessage(`Ideal State: ${none}`);
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    offered.map((c) => ({ label: firstLine(c.request), description: c.description, ...(c.detail !== undefined ? { detail: c.detail } : {}), id: c.id })),
    { title: `Ideal State: ${title}`, placeHolder: 'Which run?', matchOnDetail: true },
  );
  return picked?.id;
}

/** A request's first line, whole: the quick pick cuts what does not fit, and its filter finds the whole text. */
function firstLine(text: string): string {
  return text.split(/\r?\n/)[0]!;
}
