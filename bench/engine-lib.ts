// What bench/engine.mjs needs from the sources, bundled once per bench run.
export { AlgorithmEngine } from '../src/algorithm/engine';
export { StoreRunStorage } from '../src/algorithm/store-run-storage';
export { Store } from '../src/store/store';
export { shippedEffortTable, loadEffortTable } from '../src/model/effort-table';
export { LlmConfig } from '../src/llm/config';
export { ScriptedModel, Script } from '../src/llm/providers/scripted';
export { ModelRouter } from '../src/llm/router';
export { estimateTokens } from '../src/llm/providers/sdk-errors';
export { loadSqlJs } from '../src/store/sqljs';
export { MIGRATIONS } from '../src/store/migrations';
export { runEventTable } from '../src/store/repositories';
export { setValidateTrustedWrites } from '../src/store/json-table';
