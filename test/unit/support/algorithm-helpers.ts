import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { nodeAlgorithm } from '../../../src/app/node-run';
import type { RunLearning } from '../../../src/algorithm/ports';
import { denyAll, type Approver } from '../../../src/agent/approvals';
import { shippedEffortTable } from '../../../src/model/effort-table';
import type { EffortLevel, EffortTable, RunEvent } from '../../../src/model';
import { LlmConfig } from '../../../src/llm/config';
import { z } from 'zod';
import { BudgetLedger } from '../../../src/llm/budgets';
import { ScriptedModel, Script } from '../../../src/llm/providers/scripted';
import { ModelRouter } from '../../../src/llm/router';
import type { ChatRequest, ChatResponse, LanguageModel } from '../../../src/llm/types';
import { Store } from '../../../src/store/store';

export type Step = z.input<typeof Script>['steps'][number];

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `ideal-state-${prefix}-`));
}

/** A model that records every request before the scripted one answers (labelled scripted). */
export class RecordingModel implements LanguageModel {
  readonly requests: ChatRequest[] = [];
  constructor(readonly inner: ScriptedModel) {}
  get id() { return this.inner.id; }
  get providerId() { return this.inner.providerId; }
  get kind() { return this.inner.kind; }
  get model() { return this.inner.model; }
  get modelClass() { return this.inner.modelClass; }
  get displayName() { return this.inner.displayName; }
  chat(request: ChatRequest): Promise<ChatResponse> {
    this.requests.push(request);
    return this.inner.chat(request);
  }
}

/** A router whose every role is served by one scripted model (a test tool, labelled as one). */
export function scriptedRouter(steps: Step[], options: { budget?: BudgetLedger } = {}): { router: ModelRouter; model: RecordingModel } {
  const model = new RecordingModel(new ScriptedModel('test-script.yaml', Script.parse({ name: 'test', steps })));
  const config = LlmConfig.parse({ version: 1, providers: [{ id: 'scripted', kind: 'scripted', script: 'test-script.yaml' }], models: [{ id: 'test', provider: 'scripted', model: 'test' }], routing: { default: 'test' } });
  const router = new ModelRouter({ config, slots: new Map([['test', { ok: true, model }]]), source: 'config' }, { ...(options.budget ? { budget: options.budget } : {}) });
  return { router, model };
}

export interface CriterionSpec {
  text: string;
  verify: Record<string, unknown>;
  anti?: boolean;
  priority?: string;
}

/** `count` criteria that a file `out.txt` holding marker lines satisfies (GREP each marker). */
export function markerCriteria(count: number): CriterionSpec[] {
  return Array.from({ length: count }, (_, i) => ({ text: `Output file holds marker line number ${i + 1}`, verify: { type: 'GREP', pattern: `^marker-${i + 1}$`, glob: 'out.txt', expect: 'present' } }));
}

export function markerFile(count: number): string {
  return Array.from({ length: count }, (_, i) => `marker-${i + 1}`).join('\n') + '\n';
}

/** The manager's four answers (OBSERVE, THINK, PLAN, BUILD) for these criteria, one packet owning them all. */
export function managerSteps(criteria: readonly CriterionSpec[], options: { decision?: string } = {}): Step[] {
  const drafts = criteria.map((c) => ({ text: c.text, source: 'EXPLICIT', ...(c.anti ? { anti: true } : {}), ...(c.priority ? { priority: c.priority } : {}) }));
  const ids = (anti: boolean) => criteria.map((c, i) => ({ c, i })).filter(({ c }) => (c.anti ?? false) === anti);
  const idOf = (i: number) => {
    const anti = criteria[i]!.anti ?? false;
    return anti ? `ISC-A-${ids(true).findIndex((x) => x.i === i) + 1}` : `ISC-${ids(false).findIndex((x) => x.i === i) + 1}`;
  };
  const all = criteria.map((_, i) => idOf(i));
  return [
    { object: { criteria: drafts, decisions: options.decision ? [{ decision: options.decision, rationale: 'test rationale' }] : [] } },
    { object: { criteria: drafts.map((d, i) => ({ ...d, id: idOf(i) })) } },
    { object: { packets: [{ title: 'Write the output file', criterionIds: all }] } },
    { object: { methods: criteria.map((c, i) => ({ criterionId: idOf(i), verify: c.verify })) } },
  ];
}

/** A specialist that creates a file, then closes with a summary. */
export function specialistSteps(file: string, text: string, summary = 'Wrote the file.'): Step[] {
  return [{ toolCalls: [{ name: 'create_file', arguments: { path: file, text } }] }, { text: JSON.stringify({ summary, evidence: [`${file} written`] }) }];
}

export interface Harness {
  workspace: string;
  store: Store;
  storeFile: string;
  events: RunEvent[];
  router: ModelRouter;
  model: RecordingModel;
  engine: Awaited<ReturnType<typeof nodeAlgorithm>>['engine'];
  storage: Awaited<ReturnType<typeof nodeAlgorithm>>['storage'];
  close(): void;
}

export async function harness(steps: Step[], options: { approver?: Approver; autoApproveEdits?: boolean; allowCommands?: string[]; effort?: EffortTable; workspace?: string; storeFile?: string; trusted?: boolean; budget?: BudgetLedger; clock?: { now(): Date }; learning?: boolean | RunLearning } = {}): Promise<Harness> {
  const workspace = options.workspace ?? tempDir('ws');
  const storeFile = options.storeFile ?? path.join(tempDir('store'), 'db.sqlite');
  const store = await Store.open({ file: storeFile, checkpointIdleMs: 60_000 });
  const { router, model } = scriptedRouter(steps, { budget: options.budget });
  const events: RunEvent[] = [];
  const built = await nodeAlgorithm({
    workspace,
    store,
    models: router,
    effort: options.effort ?? shippedEffortTable(),
    approver: options.approver ?? denyAll,
    autoApproveEdits: options.autoApproveEdits ?? true,
    allowCommands: options.allowCommands ?? [],
    trusted: options.trusted ?? true,
    onEvent: (e) => events.push(e),
    verifyTimeoutMs: 20_000,
    // The engine's own tests leave learning out (it asks the model once more after a run); learning tests turn it on.
    learning: options.learning === true ? { version: 'test' } : options.learning || (false as const),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  return { workspace, store, storeFile, events, router, model, engine: built.engine, storage: built.storage, close: () => store.close() };
}

export function levelMin(level: EffortLevel): number {
  return Math.max(1, shippedEffortTable().levels[level].minCriteria);
}
