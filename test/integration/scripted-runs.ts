// Scripted models for the run suites (not a suite): each script is written into the
// workspace with a models file that routes every role to it, labelled "scripted: <name>".
// A run loads its models afresh, so each run replays its script from the first step.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RunDelta } from '../../src/app/run-sessions';

/** A committed step of a run the run service started or resumed (not a loop's sub-run). */
export type RunStep = Extract<RunDelta, { kind: 'step' }>;

/** Whether the step's commit carried an event with this message, e.g. 'PLAN → BUILD'. */
export function said(step: RunStep, message: string): boolean {
  return step.events.some((e) => e.message === message);
}
import type { IdealStateApi } from './ideal-state';

export const SCRIPTS = '.ideal-state/test-scripts';

export const folder = (): vscode.Uri => vscode.workspace.workspaceFolders![0]!.uri;
export const inWorkspace = (rel: string): string => path.join(folder().fsPath, rel);

/** One model call's scripted answer (see src/llm/providers/scripted.ts). */
export type Step = { delayMs?: number; object?: unknown; text?: string };

/** Writes the script and a models file routing every role to it, and points the setting there. */
export async function useScript(name: string, steps: Step[]): Promise<void> {
  fs.mkdirSync(inWorkspace(SCRIPTS), { recursive: true });
  const script = `${SCRIPTS}/${name}.json`;
  const models = `${SCRIPTS}/${name}.models.json`;
  fs.writeFileSync(inWorkspace(script), JSON.stringify({ name, steps }, null, 1));
  fs.writeFileSync(
    inWorkspace(models),
    JSON.stringify({ version: 1, providers: [{ id: 'scripted', kind: 'scripted', script }], models: [{ id: 'scripted-test', provider: 'scripted', model: name }], routing: { default: 'scripted-test' } }, null, 1),
  );
  await vscode.workspace.getConfiguration('idealState.models').update('configFile', models, vscode.ConfigurationTarget.Workspace);
}

export async function dropScripts(): Promise<void> {
  await vscode.workspace.getConfiguration('idealState.models').update('configFile', undefined, vscode.ConfigurationTarget.Workspace);
  fs.rmSync(inWorkspace(SCRIPTS), { recursive: true, force: true });
}

/** Calls `act` once, on the first committed step of a run that matches `when`; the subscription ends with it. */
export function onceRun(api: IdealStateApi, when: (step: RunStep) => boolean, act: (step: RunStep) => void): vscode.Disposable {
  let done = false;
  const subscription = api.runs.onDidChangeRun((delta) => {
    if (done || delta.kind !== 'step' || delta.subRun || !when(delta)) return;
    done = true;
    act(delta);
  });
  return subscription;
}

/** Resolves when a run of this id reports its end. */
export function runEnded(api: IdealStateApi, runId: string, timeoutMs = 60_000): Promise<Extract<RunDelta, { kind: 'ended' }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      subscription.dispose();
      reject(new Error(`${runId} did not end within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    const subscription = api.runs.onDidChangeRun((delta) => {
      if (delta.kind !== 'ended' || delta.runId !== runId) return;
      clearTimeout(timer);
      subscription.dispose();
      resolve(delta);
    });
  });
}

export async function until<T>(probe: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

// The greet module of the sample workspace already holds what these criteria say, so a run
// needs no edit (and asks no approval): its verifier proves them with GREP on src/greet.js.
export const GREET_CRITERIA = [
  { id: 'ISC-1', text: 'The greet module exports a greet function', source: 'EXPLICIT' },
  { id: 'ISC-2', text: 'greet answers Hello with the given name', source: 'EXPLICIT' },
  { id: 'ISC-3', text: 'greet throws an error when the name is empty', source: 'EXPLICIT' },
  { id: 'ISC-A-1', anti: true, text: 'No debugger statement is left in the greet module', source: 'INFERRED' },
];

export const GREET_METHODS = [
  { criterionId: 'ISC-1', verify: { type: 'GREP', pattern: '^export function greet\\(name\\)', glob: 'src/greet.js', expect: 'present' } },
  { criterionId: 'ISC-2', verify: { type: 'GREP', pattern: 'return `Hello, \\$\\{name\\}!`', glob: 'src/greet.js', expect: 'present' } },
  { criterionId: 'ISC-3', verify: { type: 'GREP', pattern: 'name is required', glob: 'src/greet.js', expect: 'present' } },
  { criterionId: 'ISC-A-1', verify: { type: 'GREP', pattern: '^\\s*debugger\\b', glob: 'src/greet.js', expect: 'absent' } },
];

export const OBSERVE: Step = { object: { title: 'Greet as it is', criteria: GREET_CRITERIA.map(({ id: _id, ...c }) => c), decisions: [] } };
export const THINK: Step = { object: { criteria: GREET_CRITERIA, decisions: [] } };
export const PLAN: Step = { object: { packets: [{ title: 'Check src/greet.js', criterionIds: GREET_CRITERIA.map((c) => c.id) }] } };
export const BUILD: Step = { object: { methods: GREET_METHODS } };
export const EXECUTE: Step = { text: '{"summary": "src/greet.js already exports greet as the criteria say; nothing to change.", "assumptions": [], "evidence": ["src/greet.js exports greet"]}' };
/** A step that waits a minute before answering: a run is cancelled while it waits. */
export const waits = (step: Step): Step => ({ ...step, delayMs: 60_000 });

/** A PRD file's text at FAST with one iteration, for a suite to write into the workspace: its id, title and body. */
export function testPrd(id: string, title: string, body: string): string {
  return `---\nprd: true\nid: ${id}\nstatus: CRITERIA_DEFINED\neffort_level: FAST\ncreated: 2026-11-22\nupdated: 2026-11-22\niteration: 0\nmax_iterations: 1\n---\n\n# ${title}\n${body}`;
}
