import type { DefinitionsHost } from './definitions-host';
import type { StoreHost } from './store-host';
import type { EffortLevel, Run } from '../core/model';
import type { Store } from '../store/store';
import { engine } from './engine';

/** What `activate` returns: for other extensions and for the integration tests. */
export interface IdealStateApi {
  store(): Promise<Store>;
  /** A new, unsaved run with this window's effort table. */
  newRun(request: string, effort?: EffortLevel): Promise<Run>;
}

export function createApi(stores: StoreHost, definitions: DefinitionsHost): IdealStateApi {
  return {
    store: () => stores.get(),
    newRun: async (request, effort) => engine().createRun({ request, effort }, (await definitions.get()).effort.table),
  };
}
