// What bench/gate.mjs measures inside one process: the store's cost for one verification (the
// sql.js WASM load and compile, the open, the commit, the close) against the pending record the
// gate writes instead, the main thread's CPU per spawned check, and what a spawn holds up the
// main thread of a process as large as an extension host for (bench/harness/spawn-probe.cjs).
// And what the gate's snapshot of the workspace costs (src/app/gate/snapshot.ts), its fingerprint of
// the live source, and the start of its detached process host. Bundled once per bench run.
export { Store } from '../src/store/store';
export { loadSqlJs } from '../src/store/sqljs';
export { recordVerification, recordVerificationLater } from '../src/verify/store-verification';
export { preparePrd } from '../src/app/verify-prd';
export { shippedEffortTable } from '../src/model/effort-table';
export { runCommand } from '../src/verify/run-command';
export { ProcessHost } from '../src/verify/process-host';
export { scrubEnvironment } from '../src/verify/secret-env';
export { takeSnapshot } from '../src/app/gate/snapshot';
export { fingerprint } from '../src/app/gate/workspace-fingerprint';
export { guardLinked } from '../src/app/gate/linked-guard';
