import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { nodeAlgorithm } from '../../../src/app/node-run';
import type { ApprovalRequest } from '../../../src/agent/approvals';
import { shippedEffortTable } from '../../../src/model/effort-table';
import { LlmConfig, parseLlmConfig } from '../../../src/llm/config';
import { resolveModels } from '../../../src/llm/resolve';
import { ModelRouter } from '../../../src/llm/router';
import { checkPrd } from '../../../src/prd/check';
import { parsePrd } from '../../../src/prd/parse';
import { ScriptedModel } from '../../../src/llm/providers/scripted';
import { Store } from '../../../src/store/store';
import { REPO_ROOT } from '../support/repo-root';

const SAMPLE = path.resolve(REPO_ROOT, 'test/fixtures/sample-workspace');
const CLI_DEMO = path.resolve(REPO_ROOT, 'demo/scripted-demo.yaml');
const MODELS_FILE = '.ideal-state/demo/models.yaml';
const REQUEST = 'Add a farewell(name) to src/greet.js that says Goodbye and refuses an empty name';

/**
 * The sample workspace's scripted demo (what "Your first run" in the README walks through)
 * runs to COMPLETE on a copy of the sample with the plain-Node engine: the script's edit
 * makes every check pass. The editor runs the same script through WorkspaceEdit (test/integration/run.test.ts).
 */
describe('the sample workspace scripted demo run', () => {
  it('completes at STANDARD: edit approved, GREP and CLI criteria verified, PRD checked with a LOG entry', async function () {
    this.timeout(60_000);
    const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-demo-'));
    fs.cpSync(SAMPLE, workspace, { recursive: true });
    const before = fs.readFileSync(path.join(workspace, 'src/greet.js'), 'utf8');
    const parsed = parseLlmConfig(MODELS_FILE, fs.readFileSync(path.join(workspace, MODELS_FILE), 'utf8'));
    assert.ok(parsed.ok, JSON.stringify(!parsed.ok && parsed.problems));
    const resolved = await resolveModels(parsed.value, { env: {}, baseDir: workspace });
    const router = new ModelRouter(resolved);
    assert.equal(router.route('manager', 'STANDARD').displayName, 'scripted: demo-run');
    const store = await Store.open({ file: path.join(workspace, '.data', 'db.sqlite'), checkpointIdleMs: 60_000 });
    const asked: ApprovalRequest[] = [];
    try {
      const { engine, storage } = await nodeAlgorithm({
        workspace,
        store,
        models: router,
        effort: shippedEffortTable(),
        approver: { ask: async (request) => (asked.push(request), 'approve') },
        verifyTimeoutMs: 30_000,
      });
      const result = await engine.start({ request: REQUEST, effort: 'STANDARD' });
      assert.equal(result.state, 'COMPLETE', `${result.reason}\n${JSON.stringify(result.report?.results, null, 1)}`);
      assert.deepEqual(asked.map((a) => a.kind), ['edit', 'command'], 'the edit, then the two verification commands as one set');
      assert.deepEqual(result.report!.results.map((r) => `${r.criterionId} ${r.outcome}`).sort(), ['ISC-1 PASS', 'ISC-2 PASS', 'ISC-3 PASS', 'ISC-4 PASS', 'ISC-A-1 PASS']);
      assert.match(fs.readFileSync(path.join(workspace, 'src/greet.js'), 'utf8'), /export function farewell\(name\)/);
      assert.deepEqual(storage.checkpoints(result.run.id).map((c) => [c.path, c.before]), [[result.run.prdPath, undefined], ['src/greet.js', before]], 'the file, and the PRD the run created');
      const text = fs.readFileSync(path.join(workspace, result.run.prdPath!), 'utf8');
      const prd = parsePrd(text);
      assert.ok(prd.criteria.length === 5 && prd.criteria.every((c) => c.checked), 'every criterion checked in the PRD');
      assert.equal(prd.log.length, 1);
      // The demo shows the product at its best: the PRD it writes passes the product's own linter.
      assert.deepEqual(checkPrd(text).diagnostics.map((d) => `${d.line + 1}: ${d.message}`), []);
      assertLearnedByTheManager(store, result.run.id);
    } finally {
      store.close();
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  });
});

/**
 * The command line's demo (README: demo/scripted-demo.yaml) likewise completes, writes a PRD
 * the linter passes, and ends in a reflection by the manager: its script answers LEARN too.
 */
describe('the command line scripted demo run', () => {
  it('completes at STANDARD with a PRD that lints clean and a reflection by the manager', async function () {
    this.timeout(60_000);
    const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-cli-demo-'));
    const model = ScriptedModel.fromText(CLI_DEMO, fs.readFileSync(CLI_DEMO, 'utf8'));
    const router = new ModelRouter({ config: LlmConfig.parse({ version: 1, providers: [{ id: 'scripted', kind: 'scripted', script: CLI_DEMO }], models: [{ id: 'scripted', provider: 'scripted', model: 'scripted-demo' }], routing: { default: 'scripted' } }), slots: new Map([['scripted', { ok: true, model }]]), source: 'config' });
    const store = await Store.open({ file: path.join(workspace, '.data', 'db.sqlite'), checkpointIdleMs: 60_000 });
    try {
      const { engine } = await nodeAlgorithm({ workspace, store, models: router, effort: shippedEffortTable(), approver: { ask: async () => 'approve' }, verifyTimeoutMs: 30_000 });
      const result = await engine.start({ request: 'Create hello.txt greeting the world', effort: 'STANDARD' });
      assert.equal(result.state, 'COMPLETE', `${result.reason}\n${JSON.stringify(result.report?.results, null, 1)}`);
      const text = fs.readFileSync(path.join(workspace, result.run.prdPath!), 'utf8');
      assert.deepEqual(checkPrd(text).diagnostics.map((d) => `${d.line + 1}: ${d.message}`), []);
      assertLearnedByTheManager(store, result.run.id);
      assert.equal(model.stepsLeft, 0, 'every scripted answer was asked for, the reflection last');
    } finally {
      store.close();
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  });
});

/** LEARN asked the manager's (scripted) model and got its answer: no fact-based fallback, no model error. */
function assertLearnedByTheManager(store: Store, runId: string): void {
  const reflections = store.reflections.where('run_id = ?', [runId]);
  assert.equal(reflections.length, 1);
  assert.equal(reflections[0]!.author, 'manager', reflections[0]!.q1Self);
  const messages = store.events.where('run_id = ?', [runId], 'seq').map((e) => e.message);
  assert.ok(messages.some((m) => /^LEARN: reflection refl-.* written by the manager$/.test(m)), messages.join('\n'));
  assert.deepEqual(messages.filter((m) => /model failed|ScriptError|script ran out/.test(m)), []);
}
