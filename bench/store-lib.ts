// What bench/store.mjs needs from the sources, bundled once per bench run.
export { Store } from '../src/store/store';
export { createRun } from '../src/model/runs';
export { shippedEffortTable } from '../src/model/effort-table';
export { loadSqlJs } from '../src/store/sqljs';
