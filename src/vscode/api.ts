import type { DefinitionsHost } from './definitions-host';
import type { ModelOption, ModelsHost } from './models/models-host';
import type { StoreHost } from './store-host';
import type { LearningSupport } from './learning';
import type { PrdSync } from './prd/prd-sync';
import type { EngineUpdate, MergeResult } from '../prd';
import type * as vscode from 'vscode';
import type { CriteriaTests } from './verify/criteria-tests';
import type { RunsSupport } from './isc-table';
import type { EffortLevel, Run } from '../core/model';
import type { Definitions } from '../core/definitions';
import type { Store } from '../store/store';
import { engine } from './engine';

/** What `activate` returns: for other extensions and for the integration tests. */
export interface IdealStateApi {
  store(): Promise<Store>;
  /** The effort table and ISC definitions in force for this window, with their problems. */
  definitions(): Promise<Definitions>;
  /** The models "Select Model" would offer now, available ones first. */
  modelOptions(): Promise<ModelOption[]>;
  /** A new, unsaved run with this window's effort table. */
  newRun(request: string, effort?: EffortLevel): Promise<Run>;
  /** Ratings and reflections: the engine reports runs to `host`; tests read the Reflections tree. */
  readonly learning: Pick<LearningSupport, 'host' | 'reflections' | 'status' | 'ratings'>;
  /** Engine → PRD: merges the update into the open (possibly unsaved) document as an undoable edit; the user's text wins. */
  applyPrdUpdate(uri: vscode.Uri, update: EngineUpdate): Promise<MergeResult>;
  /** The PRDs and criteria in the Testing view, each criterion with its line and last result there. */
  criteriaTests(): ReturnType<CriteriaTests['items']>;
  /** The ISC tables (what each shows, what was sent to it) and the Runs view. */
  readonly runs: Pick<RunsSupport, 'tables' | 'runs' | 'watch'>;
}

export function createApi(stores: StoreHost, definitions: DefinitionsHost, models: ModelsHost, prd: PrdSync, learning: LearningSupport, tests: CriteriaTests, runs: RunsSupport): IdealStateApi {
  return {
    store: () => stores.get(),
    definitions: () => definitions.get(),
    modelOptions: () => models.options(),
    learning: { host: learning.host, reflections: learning.reflections, status: learning.status, ratings: learning.ratings },
    newRun: async (request, effort) => engine().createRun({ request, effort }, (await definitions.get()).effort.table),
    applyPrdUpdate: (uri, update) => prd.applyEngineUpdate(uri, update),
    criteriaTests: () => tests.items(),
    runs: { tables: runs.tables, runs: runs.runs, watch: runs.watch },
  };
}
