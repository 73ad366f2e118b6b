import * as assert from 'node:assert/strict';
import type { AnyCriterion } from '../../../../src/model';
import { probedIds } from '../../../../src/app/probe';
import { applyDeltas, tableDeltas, tableSnapshot } from '../../../../src/vscode/isc-table/snapshot';
import { PROBE_MARK, rowView } from '../../../../webviews/isc-table/view-model';
import { aCriterion, aRun } from '../../support/builders';

/**
 * Probe the probes in the ISC table (issue 28 §5): the snapshot marks the criteria the run's PRD
 * notes as probed, the row says so in words with a title, and an anti-criterion is never marked.
 */
describe('the ISC table snapshot marks probed criteria', () => {
  const criteria: AnyCriterion[] = [
    aCriterion({ id: 'ISC-1', text: 'The greeting module exports a farewell function' }),
    aCriterion({ id: 'ISC-2', text: 'Calling farewell with Ada returns Goodbye, Ada!' }),
    { ...aCriterion({ id: 'ISC-A-1', text: 'No debugger statement is left in the module' }), kind: 'anti-criterion' } as AnyCriterion,
  ];
  const input = (probed?: string[]) => ({ run: aRun({ id: 'run-1' }), criteria, reports: [], events: [], abilities: { verify: true, edit: true, cancel: false, resume: false, rate: false }, ...(probed ? { probedIds: new Set(probed) } : {}) });

  it('marks the probed criterion, not the others, and never an anti-criterion', () => {
    const snap = tableSnapshot(input(['ISC-2', 'ISC-A-1']));
    assert.deepEqual(snap.rows.map((r) => [r.id, r.probed === true]), [['ISC-1', false], ['ISC-2', true], ['ISC-A-1', false]]);
    const view = rowView(snap.rows[1]!, false);
    assert.deepEqual(view.probe, PROBE_MARK);
    assert.match(view.rowClass, /\bprobed\b/);
    assert.equal(PROBE_MARK.title, 'Probe: passes before any work — can this check fail?');
    assert.equal(rowView(snap.rows[0]!, false).probe, undefined);
  });

  it('sends the marked row as a delta when a probe note appears', () => {
    const before = tableSnapshot(input());
    const after = tableSnapshot(input(['ISC-1']));
    const deltas = tableDeltas(before, after);
    assert.deepEqual(deltas.map((d) => (d.type === 'row' ? d.row.id : d.type)), ['ISC-1']);
    assert.deepEqual(applyDeltas(before, deltas), after);
  });

  it("reads the probed ids from the PRD's Probe notes", () => {
    const prd = ['---', 'prd: true', 'id: PRD-20261127-x', 'status: DRAFT', 'effort_level: STANDARD', '---', '', '# X', '', '## Ideal State Criteria', '', '- [ ] ISC-1: The greeting module exports a farewell function | Verify: Grep: farewell', '  - Probe: passes before any work — can this check fail? (2026-11-27)', '- [ ] ISC-2: Calling farewell with Ada returns Goodbye Ada | Verify: Grep: Goodbye', ''].join('\n');
    assert.deepEqual(probedIds(prd), ['ISC-1']);
  });
});
