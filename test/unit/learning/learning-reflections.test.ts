import { CancelledError } from '../../../src/model/errors';
import * as assert from 'node:assert/strict';
import { Script, ScriptedModel } from '../../../src/llm/providers/scripted';
import { learningCategory, reflectOnRun } from '../../../src/learning/reflection';
import { LearningService } from '../../../src/learning/service';
import type { Store } from '../../../src/store/store';
import { openTempStore, scripted, storeFinishedRun } from './learning-helpers';

const CRITERIA = [
  { text: 'Settings page shows a dark mode toggle switch', outcome: 'PASS' as const },
  { text: 'Toggle state persists after a page reload', outcome: 'FAIL' as const, label: 'REQUIREMENT_COVERAGE' as const },
  { text: 'Dark theme applies to modal dialogs too', outcome: 'UNKNOWN' as const, label: 'EXECUTION_ERROR' as const },
  { text: 'Contrast of body text meets WCAG AA in dark mode', addedLater: true, outcome: 'PASS' as const },
];

describe('learning: reflections and rating a run', () => {
  const open: Store[] = [];
  afterEach(() => {
    for (const s of open.splice(0)) s.close();
  });
  async function setup(effort: 'STANDARD' | 'FAST' = 'STANDARD') {
    const store = await openTempStore();
    open.push(store);
    const learning = new LearningService(store, { version: 'test', now: () => new Date('2026-11-02T09:00:00.000Z') });
    const run = storeFinishedRun(store, { request: 'Add a dark mode toggle to the settings page', effort, criteria: CRITERIA, elapsedMs: 150_000, prdPath: '.ideal-state/prds/PRD-20261101-dark-mode.md' });
    return { store, learning, run };
  }

  it('collects the facts of a stored finished run: outcomes from its report, criteria added later', async () => {
    const { learning, run } = await setup();
    const facts = learning.facts(run.id)!;
    assert.deepEqual(
      facts.criteria.map((c) => [c.id, c.outcome, c.failureLabel, c.addedLater]),
      [
        ['ISC-1', 'PASS', undefined, false],
        ['ISC-2', 'FAIL', 'REQUIREMENT_COVERAGE', false],
        ['ISC-3', 'UNKNOWN', 'EXECUTION_ERROR', false],
        ['ISC-4', 'PASS', undefined, true],
      ],
    );
  });

  it('rated 3 with a comment and no model: stores the rating and a fact-based reflection, labelled so, with a learning note naming what failed or was missing', async () => {
    const { store, learning, run } = await setup();
    assert.equal(learning.lastUnratedRun()?.id, run.id);
    const result = await learning.rateRun(run.id, { rating: 3, text: 'the toggle forgets my choice' });
    assert.equal(result.rating!.rating, 3);
    assert.equal(result.rating!.comment, 'the toggle forgets my choice');
    assert.equal(result.reflectionFallback, 'no model is available for the manager role');
    const reflection = store.reflections.where('run_id = ?', [run.id])[0]!;
    assert.equal(reflection.author, 'facts');
    assert.match(reflection.q1Self, /^\[fact-based, no model\]/);
    assert.equal(reflection.impliedSentiment, 3);
    assert.equal(reflection.withinBudget, false);
    assert.equal(reflection.elapsedPercent, 125);
    assert.equal(reflection.criteriaPassed, 2);
    assert.equal(reflection.criteriaFailed, 1);
    assert.match(reflection.learningNote!, /Rated 3\/10/);
    assert.match(reflection.learningNote!, /Failed: ISC-2 "Toggle state persists after a page reload" \[REQUIREMENT_COVERAGE\]/);
    assert.match(reflection.learningNote!, /Never proven: ISC-3/);
    assert.match(reflection.learningNote!, /Missing at the start \(added later\): ISC-4/);
    assert.equal(reflection.prdPath, '.ideal-state/prds/PRD-20261101-dark-mode.md');
    assert.equal(learning.lastUnratedRun(), undefined);
    assert.deepEqual(learning.figures(), { count: 1, rollingAverage: 3, trend: '→' });
  });

  it('rated 8: no learning note', async () => {
    const { learning, run } = await setup();
    const { reflection } = await learning.rateRun(run.id, { text: '8 - good' });
    assert.equal(reflection!.impliedSentiment, 8);
    assert.equal(reflection!.learningNote, undefined);
  });

  it('a comment without a number and no model stays a comment: no rating, kept on the reflection', async () => {
    const { store, learning, run } = await setup();
    const result = await learning.rateRun(run.id, { text: 'it forgot my setting' });
    assert.equal(result.rating, undefined);
    assert.match(result.commentOnly!, /no model/);
    assert.equal(store.ratings.count(), 0);
    assert.equal(result.reflection!.userFeedback, 'it forgot my setting');
    assert.equal(result.reflection!.impliedSentiment, undefined);
    // Kept with the run, honestly, and not asked about again.
    assert.deepEqual(learning.keptComment(run.id), { runId: run.id, at: '2026-11-02T09:00:00.000Z', comment: 'it forgot my setting' });
    assert.equal(learning.lastUnratedRun(), undefined, 'a run with a kept comment is not asked again');
    assert.deepEqual(learning.keptComments().map((k) => k.runId), [run.id]);
    const note = store.events.where('run_id = ?', [run.id]).find((e) => e.role === 'user')!;
    assert.equal(note.kind, 'note');
    // A number may still be added later, once.
    const later = await learning.rateRun(run.id, { rating: 4 });
    assert.equal(later.rating!.rating, 4);
    assert.equal(learning.facts(run.id)!.comment, 'it forgot my setting');
    await assert.rejects(learning.rateRun(run.id, { rating: 9 }), /rated already \(4\/10\); a run is rated once/);
    assert.equal(store.ratings.count(), 1);
  });

  it('a comment kept on a run below STANDARD (no reflection) is still stored with the run', async () => {
    const { learning, run } = await setup('FAST');
    const result = await learning.rateRun(run.id, { text: 'fine I guess' });
    assert.equal(result.reflection, undefined);
    assert.equal(result.commentOnly, 'no model to read a rating from it');
    assert.equal(learning.keptComment(run.id)?.comment, 'fine I guess');
    assert.equal(learning.lastUnratedRun(), undefined);
  });

  it('a comment without a number gets an implied rating from the (scripted) model, then the manager reflects', async () => {
    const { learning, run } = await setup();
    const model = scripted(
      { rating: 2, confidence: 0.9, summary: 'User is annoyed the setting is lost' },
      { q1Self: 'I would have written a persistence criterion in OBSERVE.', q2Workflow: 'THINK should ask what must survive a reload.', q3System: 'Memory should offer persistence criteria for settings requests.', category: 'ALGORITHM' },
    );
    const result = await learning.rateRun(run.id, { text: 'it forgot my setting again' }, model);
    assert.equal(result.rating!.type, 'implicit');
    assert.equal(result.rating!.rating, 2);
    assert.equal(result.rating!.confidence, 0.9);
    assert.equal(result.reflection!.author, 'manager');
    assert.equal(result.reflection!.q2Workflow, 'THINK should ask what must survive a reload.');
    assert.match(result.reflection!.learningNote!, /Rated 2\/10/);
    assert.equal(model.stepsLeft, 0);
  });

  it('falls back to a labelled fact-based reflection when the manager model fails, and passes cancellation on', async () => {
    const { learning, run } = await setup();
    const failing = new ScriptedModel('fail.yaml', Script.parse({ steps: [{ error: { kind: 'server' } }, { error: { kind: 'server' } }, { error: { kind: 'server' } }, { error: { kind: 'server' } }] }));
    const result = await learning.reflectAfterRun(run.id, failing);
    assert.equal(result!.reflection.author, 'facts');
    assert.match(result!.fallbackReason!, /manager model failed/);
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(reflectOnRun(learning.facts(run.id)!, { model: scripted({}), version: 't', signal: controller.signal }), CancelledError);
  });

  it('writes no reflection below STANDARD', async () => {
    const { learning, run } = await setup('FAST');
    assert.equal(await learning.reflectAfterRun(run.id), undefined);
    const rated = await learning.rateRun(run.id, { rating: 5 });
    assert.equal(rated.reflection, undefined);
    assert.equal(rated.rating!.rating, 5);
  });

  it('refuses to rate a run that has not finished or does not exist', async () => {
    const { store, learning, run } = await setup();
    store.runs.save({ ...run, state: 'RUNNING' });
    await assert.rejects(learning.rateRun(run.id, { rating: 5 }), /has not finished/);
    await assert.rejects(learning.rateRun('run-nothere1', { rating: 5 }), /no run run-nothere1/);
  });

  it("categorizes by seed 004's keyword rule", () => {
    assert.equal(learningCategory('The THINK phase missed criteria in the workflow'), 'ALGORITHM');
    assert.equal(learningCategory('The database api had a bug in the code'), 'SYSTEM');
    assert.equal(learningCategory('nothing matches'), 'SYSTEM');
  });
});
