import * as assert from 'node:assert/strict';
import { syncPrdText } from '../../src/core/algorithm/prd-sync';
import { emptyMemo, type AlgorithmState } from '../../src/core/algorithm/state';
import { shippedEffortTable } from '../../src/core/effort-table';
import type { AnyCriterion } from '../../src/core/model';
import { applyEdits } from '../../src/prd/edit';
import { parsePrd } from '../../src/prd/parse';
import { aCriterion, aRun } from './builders';

const NOW = new Date('2026-11-02T09:00:00.000Z');

const RUN = aRun();

function stateWith(criteria: AnyCriterion[], overrides: Partial<AlgorithmState['run']> = {}): AlgorithmState {
  return { run: { ...RUN, state: 'RUNNING', iteration: 1, ...overrides }, criteria, packets: [], candidates: [], decisions: [], memo: emptyMemo(), stepSeq: 0, eventSeq: 0 };
}

describe('algorithm: keeping the run\'s PRD in line', () => {
  const table = shippedEffortTable();
  const first = [
    aCriterion({ id: 'ISC-1', text: 'The greeting says Hello to the name' }),
    aCriterion({ id: 'ISC-2', text: 'An empty name is refused with an error' }),
  ];

  it('rewrites boxes, texts, verify parts and frontmatter values in place exactly as one edit at a time would', () => {
    const before = syncPrdText(undefined, stateWith(first), table, NOW);
    // A person's note and a comment in the frontmatter: lines the sync has no business with.
    const withNotes = before.replace('iteration: 1', 'iteration: 1 # bumped by the run').replace('## Decisions', 'A note the user wrote.\n\n## Decisions');
    const after: AnyCriterion[] = [
      { ...first[0]!, text: 'The greeting says Hello, then the name', outcome: 'PASS', verify: { type: 'GREP', pattern: 'Hello', expect: 'present' } },
      { ...first[1]!, outcome: 'FAIL' },
    ];
    const synced = syncPrdText(withNotes, stateWith(after, { iteration: 2, criteriaVersion: 2 }), table, NOW);
    // The reference: the same edits through applyEdits, which parses again after every one.
    const expected = applyEdits(withNotes, [
      { kind: 'setText', id: 'ISC-1', text: after[0]!.text },
      { kind: 'setVerify', id: 'ISC-1', verify: after[0]!.verify! },
      { kind: 'setChecked', id: 'ISC-1', checked: true },
      { kind: 'setFrontmatter', key: 'iteration', value: 2 },
      { kind: 'setFrontmatter', key: 'criteria_version', value: 2 },
    ]);
    assert.equal(synced, expected);
    const doc = parsePrd(synced);
    assert.equal(doc.criteria[0]!.text, after[0]!.text);
    assert.ok(doc.criteria[0]!.checked);
    assert.deepEqual(doc.criteria[0]!.verify, after[0]!.verify);
    assert.ok(synced.includes('iteration: 2 # bumped by the run'), 'the comment after the value stays');
    assert.ok(synced.includes('A note the user wrote.'));
    assert.equal(syncPrdText(synced, stateWith(after, { iteration: 2, criteriaVersion: 2 }), table, NOW), synced, 'a second sync changes nothing');
  });

  it('still adds criteria and frontmatter keys the file lacks, with the in-place edits', () => {
    const before = syncPrdText(undefined, stateWith(first), table, NOW).replace(/^criteria_version: .*\r?\n/m, '');
    const third = aCriterion({ id: 'ISC-3', text: 'The farewell says Goodbye to the name' });
    const synced = syncPrdText(before, stateWith([{ ...first[0]!, outcome: 'PASS' }, first[1]!, third], { criteriaVersion: 3 }), table, NOW);
    const doc = parsePrd(synced);
    assert.deepEqual(doc.criteria.map((c) => [c.id, c.checked]), [['ISC-1', true], ['ISC-2', false], ['ISC-3', false]]);
    assert.equal(doc.meta.criteriaVersion, 3);
  });
});
