import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { nodeAlgorithm } from '../../../src/app/node-run';
import { shippedEffortTable } from '../../../src/model/effort-table';
import type { LearnedCriterion } from '../../../src/learning/memory';
import { runLearning } from '../../../src/algorithm/run-learning';
import { LearningService } from '../../../src/learning/service';
import { parseLlmConfig } from '../../../src/llm/config';
import { resolveModels } from '../../../src/llm/resolve';
import { ModelRouter } from '../../../src/llm/router';
import { syncPrdToStore } from '../../../src/prd/store-sync';
import { Store } from '../../../src/store/store';
import { REPO_ROOT } from '../support/repo-root';

const SAMPLE = path.resolve(REPO_ROOT, 'test/fixtures/sample-workspace');
const MODELS_FILE = '.ideal-state/demo/models.yaml';
const REQUEST = 'Add a farewell(name) to src/greet.js that says Goodbye and refuses an empty name';
const LEARNED = 'farewell trims spaces around the name before it answers';

/**
 * Memory into OBSERVE with the sample's scripted demo (a test tool, "scripted: demo-run"):
 * a finished run whose PRD the person extended afterwards (a criterion missing at the start)
 * is rated 3; the next run of the same request is offered that criterion, with where it came
 * from, and the person keeps it or drops it.
 */
describe('learning: the next run is offered what a low-rated run missed', () => {
  let workspace: string;
  let store: Store;
  let greet: string;
  let router: () => Promise<ModelRouter>;
  before(async function () {
    this.timeout(60_000);
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-memory-'));
    fs.cpSync(SAMPLE, workspace, { recursive: true });
    greet = fs.readFileSync(path.join(workspace, 'src/greet.js'), 'utf8');
    const parsed = parseLlmConfig(MODELS_FILE, fs.readFileSync(path.join(workspace, MODELS_FILE), 'utf8'));
    assert.ok(parsed.ok);
    router = async () => new ModelRouter(await resolveModels(parsed.value, { env: {}, baseDir: workspace }));
    store = await Store.open({ file: path.join(workspace, '.data', 'db.sqlite'), checkpointIdleMs: 60_000 });
    const { engine } = await nodeAlgorithm({ workspace, store, models: await router(), effort: shippedEffortTable(), approver: { ask: async () => 'approve' }, verifyTimeoutMs: 30_000 });
    const first = await engine.start({ request: REQUEST, effort: 'STANDARD' });
    assert.equal(first.state, 'COMPLETE');
    // After the run the person writes down what it missed, in its PRD, and rates it 3.
    const prd = path.join(workspace, first.run.prdPath!);
    const text = fs.readFileSync(prd, 'utf8').replace(/(- \[x\] ISC-4:[^\n]*\n)/, `$1- [ ] ISC-5: ${LEARNED} | Verify: Grep: trim\\(\\) in src/greet.js\n`);
    fs.writeFileSync(prd, text);
    assert.equal(syncPrdToStore(store, { text, path: first.run.prdPath!, effortTable: shippedEffortTable() }).kind, 'edited');
    await new LearningService(store, { version: 't' }).rateRun(first.run.id, { rating: 3, text: 'it missed that farewell must trim whitespace' });
  });
  after(() => {
    store?.close();
    if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
  });

  async function nextRun(answer: (offers: readonly LearnedCriterion[]) => readonly LearnedCriterion[] | undefined) {
    fs.writeFileSync(path.join(workspace, 'src/greet.js'), greet);
    const asked: LearnedCriterion[][] = [];
    const learning = runLearning(new LearningService(store, { version: 't' }), { chooseLearned: async (offers) => (asked.push([...offers]), answer(offers)) });
    const { engine } = await nodeAlgorithm({ workspace, store, models: await router(), effort: shippedEffortTable(), approver: { ask: async () => 'approve' }, verifyTimeoutMs: 30_000, learning });
    const result = await engine.start({ request: REQUEST, effort: 'STANDARD' });
    const observed = store.criteria.list(result.run.id, store.criteria.versions(result.run.id)[0]);
    return { result, asked, observed, prd: fs.readFileSync(path.join(workspace, result.run.prdPath!), 'utf8') };
  }

  it('asks about the learned criterion with its provenance; kept, it is an INFERRED row noting where it came from, in the store and the PRD', async function () {
    this.timeout(60_000);
    const { asked, observed, prd } = await nextRun((offers) => offers);
    assert.equal(asked.length, 1, 'asked once, at OBSERVE');
    assert.deepEqual(asked[0]!.map((o) => [o.text, o.provenance.kind, o.provenance.kind === 'past-run' && o.provenance.why]), [[LEARNED, 'past-run', 'unproven']], 'only rows are asked about; theme advice is not');
    const row = observed.find((c) => c.text === LEARNED);
    assert.ok(row, JSON.stringify(observed.map((c) => c.text)));
    assert.equal(row.source, 'INFERRED');
    assert.match(row.notes ?? '', /^Learned from run-\w+ \(rated 3\/10, \d+% similar\): ISC-5 was never proven there\.$/);
    assert.match(prd, new RegExp(`- \\[ \\] ${row.id}: \\[I\\] \\[IMPORTANT\\] ${LEARNED} \\| Verify: Grep: trim`));
    assert.match(prd, new RegExp(`OBSERVE memory: added as INFERRED from similar past runs: ${row.id} "${LEARNED}", kept by the user, \\(Learned from run-`));
  });

  it('dropped, it is not added nor told to the manager, and the PRD says it was dropped; the run goes on as the demo does', async function () {
    this.timeout(60_000);
    const { result, asked, observed, prd } = await nextRun(() => []);
    assert.equal(asked.length, 1);
    assert.equal(asked[0]![0]!.text, LEARNED);
    assert.ok(!observed.some((c) => c.text === LEARNED));
    assert.equal(result.state, 'COMPLETE', result.reason);
    assert.match(prd, new RegExp(`dropped by the user when offered: "${LEARNED}" \\(Learned from run-`));
    assert.doesNotMatch(prd, /\[I\] \[IMPORTANT\] farewell trims/);
  });

  it('not answered (the pick closed), every offer stays as the run would add it', async function () {
    this.timeout(60_000);
    const { observed } = await nextRun(() => undefined);
    assert.equal(observed.find((c) => c.text === LEARNED)?.source, 'INFERRED');
  });
});
