import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { nodeAlgorithm } from '../../src/app/node-run';
import type { ApprovalRequest } from '../../src/agent/approvals';
import { shippedEffortTable } from '../../src/core/effort-table';
import { parseLlmConfig } from '../../src/llm/config';
import { resolveModels } from '../../src/llm/resolve';
import { ModelRouter } from '../../src/llm/router';
import { parsePrd } from '../../src/prd/parse';
import { Store } from '../../src/store/store';

const SAMPLE = path.resolve(__dirname, '../../../test/fixtures/sample-workspace');
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
      const prd = parsePrd(fs.readFileSync(path.join(workspace, result.run.prdPath!), 'utf8'));
      assert.ok(prd.criteria.length === 5 && prd.criteria.every((c) => c.checked), 'every criterion checked in the PRD');
      assert.equal(prd.log.length, 1);
    } finally {
      store.close();
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  });
});
