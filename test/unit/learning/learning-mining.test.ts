import * as assert from 'node:assert/strict';
import { learnedCriteria, toCriterion } from '../../../src/learning/memory';
import { mineThemes } from '../../../src/learning/mining';
import { LearningService } from '../../../src/learning/service';
import type { Reflection } from '../../../src/model';
import type { Store } from '../../../src/store/store';
import { openTempStore, storeFinishedRun } from './learning-helpers';

let n = 0;
function reflection(group: string, q1: string, q2: string, q3: string, extra: Partial<Reflection> = {}): Reflection {
  n += 1;
  return {
    id: `${group}-${n}`,
    runId: `run-${String(n).padStart(6, '0')}`,
    timestamp: new Date(Date.UTC(2026, 10, 1, 0, n)).toISOString(),
    effortLevel: 'STANDARD',
    criteriaCount: 4,
    criteriaPassed: 3,
    criteriaFailed: 1,
    withinBudget: true,
    elapsedPercent: 60,
    q1Self: q1,
    q2Workflow: q2,
    q3System: q3,
    category: 'ALGORITHM',
    version: 'test',
    ...extra,
  };
}

/** Three known themes in different words: unverified criteria, budget overruns, ambiguous requirements. */
const CRAFTED: Reflection[] = [
  reflection('verify', 'Two criteria stayed UNKNOWN because no verify command existed.', 'BUILD should turn every verify method into a concrete command.', 'Ship a verifier for test commands.', { artifactType: 'code.feature', impliedSentiment: 5 }),
  reflection('verify', 'The verify step had no command for the lint criterion, so it was never proven.', 'Make each verify method a runnable command in BUILD.', 'Offer verify command templates.', { artifactType: 'code.bugfix', impliedSentiment: 6 }),
  reflection('verify', 'I claimed done but the verify command was missing for three criteria.', 'Refuse to leave BUILD until each verify command runs.', 'A verifier for every command criterion.', { artifactType: 'code.feature' }),
  reflection('budget', 'The run went far over budget with too many packets.', 'Compress packets earlier once the budget passes its limit.', 'Pick a smaller effort level so the budget holds.', { withinBudget: false, elapsedPercent: 180, impliedSentiment: 3, artifactType: 'docs.page', category: 'SYSTEM' }),
  reflection('budget', 'Budget overrun: I planned packets for every file.', 'Fewer packets keep the run inside its budget.', 'Warn when the packets plan exceeds the budget.', { withinBudget: false, elapsedPercent: 160, impliedSentiment: 2, artifactType: 'code.refactor', category: 'SYSTEM' }),
  reflection('budget', 'Spent the whole budget on packets that did not matter.', 'Order packets so the budget goes to critical criteria.', 'Budget-aware packet planning.', { withinBudget: true, elapsedPercent: 95, impliedSentiment: 4, artifactType: 'code.feature', category: 'SYSTEM' }),
  reflection('ambiguous', 'The request was ambiguous and I guessed the meaning of export.', 'Ask the user about ambiguous requirements during THINK.', 'Flag ambiguous words in the request.', { impliedSentiment: 7 }),
  reflection('ambiguous', 'I guessed an ambiguous requirement instead of asking the user.', 'THINK should ask the user when a requirement is ambiguous.', 'Detect ambiguous requirements automatically.', { impliedSentiment: 8 }),
];

describe('learning: mining reflections into themes', () => {
  it('finds the three crafted themes, each exactly, heaviest (low-rated, over budget) first', () => {
    const themes = mineThemes(CRAFTED);
    const groups = themes.map((t) => [...new Set(t.reflectionIds.map((id) => id.split('-')[0]))]);
    assert.deepEqual(groups, [['budget'], ['verify'], ['ambiguous']]);
    assert.deepEqual(
      themes.map((t) => t.frequency),
      [3, 3, 2],
    );
    const [budget, verify, ambiguous] = themes;
    assert.ok(budget!.terms.includes('budget'), budget!.label);
    assert.ok(verify!.terms.includes('verify'), verify!.label);
    assert.ok(ambiguous!.terms.includes('ambiguou'), ambiguous!.label);
    assert.equal(budget!.averageRating, 3);
    assert.equal(budget!.overBudgetRate, 2 / 3);
    assert.deepEqual(budget!.artifactTypes, ['code.feature', 'code.refactor', 'docs.page']);
    assert.equal(verify!.averageRating, 5.5);
    assert.equal(verify!.overBudgetRate, 0);
    assert.deepEqual(verify!.artifactTypes, ['code.bugfix', 'code.feature']);
    assert.ok(budget!.priority > verify!.priority && verify!.priority > ambiguous!.priority);
    // A SYSTEM theme suggests its system answer, an ALGORITHM theme its workflow answer.
    assert.ok(CRAFTED.some((r) => r.q3System === budget!.suggestedChange));
    assert.ok(CRAFTED.some((r) => r.q2Workflow === verify!.suggestedChange));
  });

  it('keeps unrelated reflections apart at the default threshold and merges everything at threshold 0', () => {
    assert.equal(mineThemes(CRAFTED, { threshold: 0 }).length, 1);
    assert.equal(mineThemes(CRAFTED, { threshold: 0.99 }).length, CRAFTED.length);
    assert.deepEqual(mineThemes([]), []);
  });
});

describe('learning: memory for a new request', () => {
  const open: Store[] = [];
  afterEach(() => {
    for (const s of open.splice(0)) s.close();
  });

  it('offers the criteria that failed, went unproven or were missing in a similar low-rated run, with provenance', async () => {
    const store = await openTempStore();
    open.push(store);
    const learning = new LearningService(store, { version: 'test' });
    const darkMode = storeFinishedRun(store, {
      request: 'Add a dark mode toggle to the settings page',
      criteria: [
        { text: 'Settings page shows a dark mode toggle switch', outcome: 'PASS' },
        { text: 'Toggle state persists after a page reload', outcome: 'FAIL' },
        { text: 'Dark theme applies to modal dialogs too', addedLater: true, outcome: 'PASS' },
      ],
    });
    const csv = storeFinishedRun(store, { request: 'Add a CSV export button to the reports table', criteria: [{ text: 'Export includes every visible column', outcome: 'FAIL' }] });
    const login = storeFinishedRun(store, { request: 'Fix the login session timeout bug', criteria: [{ text: 'Session survives thirty minutes idle', outcome: 'FAIL' }] });
    await learning.rateRun(darkMode.id, { rating: 3, text: 'forgets my choice' });
    await learning.rateRun(csv.id, { rating: 9 });
    await learning.rateRun(login.id, { rating: 2 });
    learning.mine();

    const offers = learning.memoryFor('Add a dark mode switch to the settings screen');
    const fromRuns = offers.filter((o) => o.provenance.kind === 'past-run');
    assert.deepEqual(
      fromRuns.map((o) => [o.text, o.provenance.kind === 'past-run' && o.provenance.why, o.provenance.kind === 'past-run' && o.provenance.runId]),
      [
        ['Toggle state persists after a page reload', 'failed', darkMode.id],
        ['Dark theme applies to modal dialogs too', 'added-later', darkMode.id],
      ],
    );
    assert.ok(offers.every((o) => o.source === 'INFERRED'));
    const themeOffers = offers.filter((o) => o.provenance.kind === 'theme');
    assert.equal(themeOffers.length, 1, 'the theme of the dark mode reflection is offered');
    assert.equal(themeOffers[0]!.provenance.kind === 'theme' && themeOffers[0]!.provenance.runId, darkMode.id);

    const criterion = toCriterion(fromRuns[0]!, 'ISC-9', new Date('2026-11-03T00:00:00.000Z'));
    assert.equal(criterion.source, 'INFERRED');
    assert.match(criterion.notes!, new RegExp(`Learned from ${darkMode.id} \\(rated 3/10, \\d+% similar\\): ISC-2 failed there`));

    assert.deepEqual(learning.memoryFor('Fix the login session timeout bug').map((o) => o.provenance.kind === 'past-run' && o.provenance.runId).filter(Boolean), [login.id]);
    assert.deepEqual(learnedCriteria('Write a haiku about autumn leaves', [learning.facts(darkMode.id)!]), [], 'nothing similar, nothing offered');
  });

  it('learns nothing as "never proven" from a low-rated run that verified nothing, only what it found missing', async () => {
    const store = await openTempStore();
    open.push(store);
    const learning = new LearningService(store, { version: 'test' });
    const stopped = storeFinishedRun(store, {
      request: 'Add a dark mode toggle to the settings page',
      criteria: [
        { text: 'Settings page shows a dark mode toggle switch' },
        { text: 'Dark theme applies to modal dialogs too', addedLater: true },
      ],
    });
    await learning.rateRun(stopped.id, { rating: 2 });
    const offered = learning.memoryFor('Add a dark mode switch to the settings screen').filter((o) => o.provenance.kind === 'past-run');
    assert.deepEqual(
      offered.map((o) => [o.text, o.provenance.kind === 'past-run' && o.provenance.why]),
      [['Dark theme applies to modal dialogs too', 'added-later']],
    );
  });
});
