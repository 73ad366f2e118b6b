// What bench/loop.mjs needs from the sources, bundled once per bench run.
export { LoopEngine } from '../src/app/loop';
export { Store } from '../src/store/store';
export { NodeWorkspace } from '../src/agent/node-workspace';
export { denyAll } from '../src/agent/approvals';
export { shippedEffortTable } from '../src/model/effort-table';
export { IscDefinition } from '../src/model';
export { LlmConfig } from '../src/llm/config';
export { ScriptedModel, Script } from '../src/llm/providers/scripted';
export { ModelRouter } from '../src/llm/router';
