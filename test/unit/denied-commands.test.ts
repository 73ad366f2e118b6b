import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { nodeAlgorithm } from '../../src/app/node-run';
import type { ApprovalRequest } from '../../src/agent/approvals';
import { shippedEffortTable } from '../../src/model/effort-table';
import { parseLlmConfig } from '../../src/llm/config';
import { resolveModels } from '../../src/llm/resolve';
import { ModelRouter } from '../../src/llm/router';
import { parsePrd } from '../../src/prd/parse';
import { Store } from '../../src/store/store';

const SAMPLE = path.resolve(__dirname, '../../../test/fixtures/sample-workspace');
const MODELS_FILE = '.ideal-state/demo/models.yaml';
const REQUEST = 'Add a farewell(name) to src/greet.js that says Goodbye and refuses an empty name';

/**
 * A person's denial of the demo's verification commands (issue 28 §3): the criteria are UNKNOWN,
 * "not approved", each verification asks again, and the PRD LOG lists them apart from Failing.
 * A command the model proposed and the person denied is not written into the PRD (issue 15:
 * `ideal-state verify --yes` in CI would run what the PRD names) — see the report to the lead.
 */
describe('a denied verification command', () => {
  it('leaves the criterion UNKNOWN (not approved), asks again at the next verification, and never lists it under Failing', async function () {
    this.timeout(90_000);
    const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-deny-'));
    fs.cpSync(SAMPLE, workspace, { recursive: true });
    const parsed = parseLlmConfig(MODELS_FILE, fs.readFileSync(path.join(workspace, MODELS_FILE), 'utf8'));
    assert.ok(parsed.ok);
    const router = new ModelRouter(await resolveModels(parsed.value, { env: {}, baseDir: workspace }));
    const store = await Store.open({ file: path.join(workspace, '.data', 'db.sqlite'), checkpointIdleMs: 60_000 });
    const asked: ApprovalRequest[] = [];
    try {
      const { engine } = await nodeAlgorithm({ workspace, store, models: router, effort: shippedEffortTable(), approver: { ask: async (r) => (asked.push(r), r.kind === 'command' ? 'deny' : 'approve') }, verifyTimeoutMs: 30_000 });
      const result = await engine.start({ request: REQUEST, effort: 'STANDARD' });
      const text = fs.readFileSync(path.join(workspace, result.run.prdPath!), 'utf8');
      const prd = parsePrd(text);
      assert.deepEqual(prd.criteria.filter((c) => c.verify?.type === 'CLI').map((c) => c.id), [], 'a denied, model-proposed command is not written where CI would run it');
      for (const id of ['ISC-2', 'ISC-3']) {
        const r = result.report!.results.find((x) => x.criterionId === id)!;
        assert.equal(r.outcome, 'UNKNOWN');
        assert.match(r.evidence, /not approved/);
      }
      assert.ok(asked.filter((a) => a.kind === 'command').length >= 2, 'each verification asks again');
      assert.doesNotMatch(text, /- Failing: [^\n]*UNKNOWN/, 'the LOG lists an UNKNOWN apart, never under Failing');
      assert.match(text, /- Unknown: ISC-2 \(UNKNOWN [A-Z_]+\), ISC-3/);
    } finally {
      store.close();
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  });
});
