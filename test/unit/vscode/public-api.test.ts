import * as assert from 'node:assert/strict';
import { createApi } from '../../../src/vscode/api';

/**
 * What another extension gets from `activate` outside the extension's own tests: nothing that
 * answers approvals, lowers trust, or reads and writes the store (issue 16: test hooks are not
 * product API). The hosts are never called while the object is built, so empty stand-ins do.
 */
describe('the API activate returns', () => {
  const hosts = () => {
    const runs = { onDidChangeRun: () => ({ dispose() {} }), activeRuns: () => [], answerApprovalsWith() {}, simulateTrust() {}, approvals: {}, decideApproval() {} };
    const loops = { service: {}, matrices: {}, engine: { answerApprovalsWith() {} } };
    return [{}, {}, {}, { applyEngineUpdate: async () => ({}) }, {}, {}, runs, {}, loops] as unknown as Parameters<typeof createApi> extends [...infer H, boolean] ? H : never;
  };

  it('outside tests: PRD updates and the runs to watch, and no test hook', () => {
    const api = createApi(...hosts(), false) as unknown as Record<string, unknown> & { runs: Record<string, unknown> };
    assert.deepEqual(Object.keys(api).sort(), ['applyPrdUpdate', 'runs']);
    assert.deepEqual(Object.keys(api.runs).sort(), ['activeRuns', 'onDidChangeRun']);
    for (const hook of ['answerApprovalsWith', 'simulateTrust', 'decideApproval', 'approvals']) assert.equal(api.runs[hook], undefined, hook);
    for (const reach of ['store', 'iscTable', 'modelsForRun', 'learning', 'loops']) assert.equal(api[reach], undefined, reach);
  });

  it('in the extension\'s own tests (ExtensionMode.Test): the hooks the integration tests use', () => {
    const api = createApi(...hosts(), true) as unknown as { runs: Record<string, unknown>; store: unknown; loops: Record<string, unknown> };
    for (const hook of ['answerApprovalsWith', 'simulateTrust', 'decideApproval', 'approvals']) assert.ok(api.runs[hook] !== undefined, hook);
    for (const hook of ['service', 'matrices', 'answerApprovalsWith']) assert.ok(api.loops[hook] !== undefined, `loops.${hook}`);
    assert.equal(typeof api.store, 'function');
  });
});
