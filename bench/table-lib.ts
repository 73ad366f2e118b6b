// What bench/table.mjs needs from the sources, bundled once per bench run: the snapshot comes
// from the same function the extension sends it with, so the bench follows the protocol.
export { tableSnapshot } from '../src/vscode/isc-table/snapshot';
export { AnyCriterion, Run, VerificationReport } from '../src/model';
export { createRun } from '../src/model/runs';
export { shippedEffortTable } from '../src/model/effort-table';
