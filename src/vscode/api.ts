import type { DefinitionsHost } from './definitions-host';
import type { ModelOption, ModelsHost, SelectedModel } from './models/models-host';
import type { StoreHost } from './store-host';
import type { CriteriaTests } from './verify/criteria-tests';
import type { LearningSupport } from './learning';
import type { PrdSync } from './prd/prd-sync';
import type { EngineUpdate, MergeResult } from '../prd';
import type * as vscode from 'vscode';
import type { RunsSupport } from './runs';
import type { LoopSupport } from './loop';
import type { LockSupport } from './lock';
import type { RunService } from './run/run-service';
import type { EffortLevel, Run } from '../model';
import type { Definitions } from '../model/definitions';
import type { Store } from '../store/store';
import type { BudgetLedger, BudgetLimits, LanguageModel, ModelRouter } from '../llm';
import { engine } from './engine';

/** What `activate` returns: for other extensions and for the integration tests. */
export interface IdealStateApi {
  store(): Promise<Store>;
  /** The effort table and ISC definitions in force for this window, with their problems. */
  definitions(): Promise<Definitions>;
  /** The models "Select Model" would offer now, available ones first. */
  modelOptions(): Promise<ModelOption[]>;
  /** The model that serves when nothing routes a role elsewhere, or why there is none. */
  selectedModel(): Promise<SelectedModel>;
  /** A model by a "Select Model" id (`vscode-lm:<id>` or a configured id), ready to call; undefined when unavailable. */
  model(id: string): Promise<LanguageModel | undefined>;
  /** The token and money caps in force for a run at this level: settings over the models file over the shipped table. */
  budgetLimits(level: EffortLevel): Promise<BudgetLimits>;
  /** A run's model router and the budget ledger it holds every call to. */
  modelsForRun(level: EffortLevel): Promise<{ router: ModelRouter; budget: BudgetLedger }>;
  /** A new, unsaved run with this window's effort table. */
  newRun(request: string, effort?: EffortLevel): Promise<Run>;
  /** The PRDs and criteria in the Testing view, each criterion with its line and last result there. */
  criteriaTests(): ReturnType<CriteriaTests['items']>;
  /** Ratings and reflections: the engine reports runs to `host`; tests read the Reflections tree. */
  readonly learning: Pick<LearningSupport, 'host' | 'reflections' | 'status' | 'ratings'>;
  /** Engine → PRD: merges the update into the open (possibly unsaved) document as an undoable edit; the user's text wins. */
  applyPrdUpdate(uri: vscode.Uri, update: EngineUpdate): Promise<MergeResult>;
  /**
   * Runs of the Algorithm in this window: every change as their one writer tells it (each
   * committed step once, with its run row and events; the run's end), the runs going now
   * (phase, criteria rows, budget as of now), their pending approvals (answered like the
   * ISC table does), and two hooks for tests — answering approvals instead of a person, and
   * behaving as in Restricted Mode.
   */
  readonly runs: Pick<RunService, 'onDidChangeRun' | 'activeRuns' | 'answerApprovalsWith' | 'simulateTrust' | 'approvals' | 'decideApproval'>;
  /** The ISC tables (what each shows, what was sent to it) and the Runs view. */
  readonly iscTable: Pick<RunsSupport, 'tables' | 'runs' | 'watch'>;
  /** Loops of this window (their changes, the ones going, Restricted Mode), their matrices, and the hook that answers their approvals. */
  readonly loops: { readonly service: Pick<LoopSupport['service'], 'onDidChange' | 'activeLoops' | 'simulateTrust' | 'progress' | 'list'>; readonly matrices: LoopSupport['matrices']; answerApprovalsWith: LoopSupport['engine']['answerApprovalsWith'] };
  /** The criteria lock: what its dialogs asked, a hook that answers them instead of a person, and Restricted Mode. */
  readonly lock?: { readonly dialogs: Pick<LockSupport['locks']['dialogs'], 'asked' | 'answerWith'>; simulateTrust: LockSupport['locks']['simulateTrust']; state: LockSupport['locks']['state']; acceptProposal: LockSupport['locks']['acceptProposal'] };
}

/**
 * What any other extension gets from `activate`: PRD updates merged like the engine's, and the
 * runs of this window to watch. Nothing that reads or writes the store, answers approvals or
 * changes trust: those are the tests' hooks, given only in `ExtensionMode.Test`.
 */
export type PublicIdealStateApi = Pick<IdealStateApi, 'applyPrdUpdate'> & { readonly runs: Pick<IdealStateApi['runs'], 'onDidChangeRun' | 'activeRuns'> };

/** The criteria lock's test hooks (added by `activate` in ExtensionMode.Test only). */
export function lockTestHooks(locks: LockSupport): NonNullable<IdealStateApi['lock']> {
  return { dialogs: locks.locks.dialogs, simulateTrust: (trusted) => locks.locks.simulateTrust(trusted), state: (folder, prdPath) => locks.locks.state(folder, prdPath), acceptProposal: (folder, prdPath, id) => locks.locks.acceptProposal(folder, prdPath, id) };
}

export function createApi(
  stores: StoreHost,
  definitions: DefinitionsHost,
  models: ModelsHost,
  prd: PrdSync,
  learning: LearningSupport,
  tests: CriteriaTests,
  runs: RunService,
  tables: RunsSupport,
  loops: LoopSupport,
  testing: boolean,
): IdealStateApi | PublicIdealStateApi {
  if (!testing) {
    return {
      applyPrdUpdate: (uri, update) => prd.applyEngineUpdate(uri, update),
      runs: { onDidChangeRun: runs.onDidChangeRun, activeRuns: () => runs.activeRuns() },
    };
  }
  return {
    store: () => stores.get(),
    definitions: () => definitions.get(),
    modelOptions: () => models.options(),
    selectedModel: () => models.selected(),
    model: (id) => models.model(id),
    budgetLimits: (level) => models.budgetLimits(level),
    modelsForRun: (level) => models.forRun(level),
    newRun: async (request, effort) => engine().createRun({ request, effort }, (await definitions.get()).effort.table),
    criteriaTests: () => tests.items(),
    learning: { host: learning.host, reflections: learning.reflections, status: learning.status, ratings: learning.ratings },
    applyPrdUpdate: (uri, update) => prd.applyEngineUpdate(uri, update),
    runs: {
      onDidChangeRun: runs.onDidChangeRun,
      activeRuns: () => runs.activeRuns(),
      answerApprovalsWith: (answerer) => runs.answerApprovalsWith(answerer),
      simulateTrust: (trusted) => runs.simulateTrust(trusted),
      approvals: runs.approvals,
      decideApproval: (approvalId, answer, via) => runs.decideApproval(approvalId, answer, via),
    },
    iscTable: { tables: tables.tables, runs: tables.runs, watch: tables.watch },
    loops: { service: loops.service, matrices: loops.matrices, answerApprovalsWith: (answerer) => loops.engine.answerApprovalsWith(answerer) },
  };
}
