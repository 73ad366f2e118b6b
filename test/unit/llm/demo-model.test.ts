import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadRoles } from '../../../src/algorithm/roles';
import { VerifierJudge } from '../../../src/app/judge';
import { noCommentReader } from '../../../src/learning/rating-text';
import { checkModels } from '../../../src/llm/check-model';
import { formatCheckReport, summarizeCheck } from '../../../src/llm/check-model-text';
import { parseLlmConfig } from '../../../src/llm/config';
import { ScriptedModel } from '../../../src/llm/providers/scripted';
import { resolveModels } from '../../../src/llm/resolve';
import { ModelRouter } from '../../../src/llm/router';
import { verifyCriteria } from '../../../src/verify/verify-criteria';
import { criterion } from '../support/verify-helpers';
import { REPO_ROOT } from '../support/repo-root';

const SAMPLE = path.resolve(REPO_ROOT, 'test/fixtures/sample-workspace');
const MODELS_FILE = '.ideal-state/demo/models.yaml';

/** The sample workspace's demo, resolved as the editor and the command line resolve it (README "Your first run"). */
async function demoModels() {
  const parsed = parseLlmConfig(MODELS_FILE, fs.readFileSync(path.join(SAMPLE, MODELS_FILE), 'utf8'));
  assert.ok(parsed.ok, JSON.stringify(!parsed.ok && parsed.problems));
  return resolveModels(parsed.value, { baseDir: SAMPLE });
}

/**
 * Issue 28 §7: the scripted demo is presented as what it is. Check Model called it and read
 * the OBSERVE step of its script as the check's answer, so right after a whole run worked it
 * said the demo "does not work … fix the script"; Custom criteria under it got a script-format
 * error; the rating form said "No model is chosen" while it was the model selected.
 */
describe('the scripted demo model, as what it is', () => {
  it("Check Model says it is a scripted demo that answers the README's request only, and does not call it", async () => {
    const resolved = await demoModels();
    const demo = resolved.slots.get('demo');
    assert.ok(demo?.ok && demo.model instanceof ScriptedModel);
    const report = await checkModels(resolved, { level: 'STANDARD' });
    const summary = summarizeCheck(report);
    assert.match(summary, /^Check Model: scripted: demo-run is a scripted demo: answers the README's request only\./, summary);
    assert.doesNotMatch(summary, /does not work|fix the script|works for every role/, summary);
    const text = formatCheckReport(report).join('\n');
    assert.match(text, /every role is served by a scripted demo, which was not called/, text);
    assert.doesNotMatch(text, /fix the script|failed/, text);
    // Not one step of its script was read: a run after the check still gets OBSERVE's answer first.
    assert.equal(demo.model.stepsUsed, 0);
    assert.deepEqual(report.spent, { inputTokens: 0, outputTokens: 0, costUsd: 0, priced: true });
  });

  it('a script without demo: is still checked, and a wrong step still says to fix the script', async () => {
    const resolved = await resolveModels(
      { version: 1, providers: [{ id: 's', kind: 'scripted', script: 'other.yaml' }], models: [{ id: 'other', provider: 's', model: 'other' }] },
      { readText: async () => 'steps:\n  - text: hello\n' },
    );
    const report = await checkModels(resolved, { level: 'STANDARD' });
    assert.equal(report.works, false);
    assert.match(summarizeCheck(report), /fix the script/);
  });

  it('a Custom criterion under the demo is UNKNOWN: no model judges this criterion (never a script-format error)', async () => {
    const resolved = await demoModels();
    const router = new ModelRouter(resolved);
    const judge = new VerifierJudge(router, loadRoles().roles.verifier, 'STANDARD');
    const custom = criterion({ type: 'CUSTOM', description: 'The farewell message reads warmly' });
    const set = await verifyCriteria([custom], { workspaceRoot: SAMPLE, judge }, { parallelism: 1, timeoutMs: 10_000 });
    const [result] = set.results;
    assert.equal(result!.outcome, 'UNKNOWN');
    assert.match(result!.evidence, /^no model judges this criterion: the verifier is scripted: demo-run, a scripted demo: answers the README's request only/, result!.evidence);
    assert.doesNotMatch(result!.evidence, /the object does not match|step \d+/, result!.evidence);
    const demo = resolved.slots.get('demo');
    assert.ok(demo?.ok && demo.model instanceof ScriptedModel);
    assert.equal(demo.model.stepsUsed, 0, 'the judge never read a step of the script');
  });

  it('the rating forms name the demo instead of saying no model is chosen', () => {
    const why = noCommentReader({ displayName: 'scripted: demo-run', demo: "the README's request" });
    assert.equal(why, 'The selected model, scripted: demo-run, is a scripted demo and reads no comments');
    assert.equal(noCommentReader(undefined), 'No model is chosen');
    assert.equal(noCommentReader({ displayName: 'openai: gpt-5-mini' }), 'No model is chosen');
  });
});
