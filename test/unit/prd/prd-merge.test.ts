import * as assert from 'node:assert/strict';
import { applyEdits, applyTextChanges, criterionData, diffPrdView, mergeEngineUpdate, parsePrd, prdView, textChanges, type EngineUpdate, type PrdCriterionData } from '../../../src/prd';
import { changedRegion, textLines } from './prd-helpers';

const BASE = [
  '---',
  'prd: true',
  'id: PRD-20261122-merge',
  'status: IN_PROGRESS',
  'effort_level: FAST',
  'iteration: 1',
  '---',
  '',
  '# Merge fixture',
  '',
  '## Problem Space',
  'The engine and the user both edit this file.',
  '',
  '## Ideal State Criteria',
  '- [ ] ISC-1: Settings page shows a dark mode toggle switch to users | Verify: Grep: dark-mode',
  '- [ ] ISC-2: Dark theme colours pass the contrast checker at level AA | Verify: CLI: npm run contrast',
  '- [ ] ISC-3: [NICE] Toggle state survives a full window reload by the user | Verify: Custom',
  '',
  '## Anti-Criteria',
  '- [ ] ISC-A-1: No stylesheet hard-codes a colour outside the theme tokens | Verify: Grep: #[0-9a-f]{6}',
  '',
  '## LOG',
  '',
  '### Iteration 1 — 2026-11-22',
  '- Phase: OBSERVE → THINK',
  '- Criteria: 0/3 passing',
  '- Work: criteria written',
  '- Failing: none',
  '',
].join('\n');

/** The engine's criteria: the base's, with `change` applied to the one with this id. */
function engineCriteria(text: string, changes: Record<string, Partial<PrdCriterionData> | null> = {}): PrdCriterionData[] {
  return parsePrd(text)
    .criteria.map(criterionData)
    .flatMap((c) => (changes[c.id] === null ? [] : [{ ...c, ...changes[c.id] }]));
}

const line = (text: string, id: string) => textLines(text).find((l) => l.includes(`${id}:`));
const edit = (text: string, ...edits: Parameters<typeof applyEdits>[1]) => applyEdits(text, edits);

describe('merging engine updates into the user’s PRD text', () => {
  it('brings in a change only the engine made, rewriting only that line', () => {
    const update: EngineUpdate = { base: BASE, criteria: engineCriteria(BASE, { 'ISC-2': { checked: true } }) };
    const result = mergeEngineUpdate(BASE, update);
    assert.deepEqual(changedRegion(BASE, result.text), {
      at: 15,
      removed: ['- [ ] ISC-2: Dark theme colours pass the contrast checker at level AA | Verify: CLI: npm run contrast'],
      added: ['- [x] ISC-2: Dark theme colours pass the contrast checker at level AA | Verify: CLI: npm run contrast'],
    });
    assert.deepEqual(result.applied, ['ISC-2 checked']);
    assert.deepEqual(result.userWon, []);
  });

  it('keeps a change only the user made', () => {
    const mine = edit(BASE, { kind: 'setText', id: 'ISC-1', text: 'Settings page shows a labelled dark mode toggle switch' });
    const result = mergeEngineUpdate(mine, { base: BASE, criteria: engineCriteria(BASE) });
    assert.equal(result.text, mine);
    assert.deepEqual(result.applied, []);
  });

  it('merges the user’s edit of one criterion with the engine’s edit of another', () => {
    const mine = edit(BASE, { kind: 'setText', id: 'ISC-1', text: 'Settings page shows a labelled dark mode toggle switch' });
    const result = mergeEngineUpdate(mine, { base: BASE, criteria: engineCriteria(BASE, { 'ISC-3': { checked: true, priority: 'IMPORTANT' } }) });
    assert.equal(line(result.text, 'ISC-1'), '- [ ] ISC-1: Settings page shows a labelled dark mode toggle switch | Verify: Grep: dark-mode');
    assert.equal(line(result.text, 'ISC-3'), '- [x] ISC-3: [IMPORTANT] Toggle state survives a full window reload by the user | Verify: Custom');
    assert.deepEqual(result.applied.sort(), ['ISC-3 checked', 'ISC-3 priority']);
  });

  it('lets the user’s text win when both changed the same field, and merges different fields of one criterion', () => {
    const mine = edit(BASE, { kind: 'setText', id: 'ISC-1', text: 'User wording of the dark mode toggle criterion here' });
    const result = mergeEngineUpdate(mine, { base: BASE, criteria: engineCriteria(BASE, { 'ISC-1': { text: 'Engine wording of the dark mode toggle criterion', checked: true } }) });
    assert.equal(line(result.text, 'ISC-1'), '- [x] ISC-1: User wording of the dark mode toggle criterion here | Verify: Grep: dark-mode');
    assert.deepEqual(result.userWon, ['ISC-1 text']);
    assert.deepEqual(result.applied, ['ISC-1 checked']);
  });

  it('adds what the engine added, in its section and domain', () => {
    const criteria = [
      ...engineCriteria(BASE),
      { id: 'ISC-4', kind: 'criterion', checked: false, text: 'Keyboard shortcut switches the theme without opening settings', priority: 'CRITICAL', source: 'INFERRED', verify: { type: 'GREP', pattern: 'toggleTheme', expect: 'present' } },
      { id: 'ISC-A-2', kind: 'anti-criterion', checked: false, text: 'No theme switch flashes white for a frame', priority: 'NICE', source: 'EXPLICIT' },
    ] satisfies PrdCriterionData[];
    const result = mergeEngineUpdate(BASE, { base: BASE, criteria });
    const lines = textLines(result.text);
    assert.equal(lines[17], '- [ ] ISC-4: [I] Keyboard shortcut switches the theme without opening settings | Verify: Grep: toggleTheme');
    assert.equal(lines[21], '- [ ] ISC-A-2: [NICE] No theme switch flashes white for a frame');
    assert.deepEqual(result.applied, ['ISC-4 added', 'ISC-A-2 added']);
    assert.equal(parsePrd(result.text).diagnostics.filter((d) => d.severity === 'error').length, 0);
  });

  it('removes what the engine removed only when the user left it as it was', () => {
    const removed = mergeEngineUpdate(BASE, { base: BASE, criteria: engineCriteria(BASE, { 'ISC-3': null }) });
    assert.equal(line(removed.text, 'ISC-3'), undefined);
    assert.deepEqual(removed.applied, ['ISC-3 removed']);

    const mine = edit(BASE, { kind: 'setChecked', id: 'ISC-3', checked: true });
    const kept = mergeEngineUpdate(mine, { base: BASE, criteria: engineCriteria(BASE, { 'ISC-3': null }) });
    assert.equal(kept.text, mine);
    assert.deepEqual(kept.userWon, ['ISC-3 removed by the engine but edited by the user']);
  });

  it('does not bring back a criterion the user removed, even when the engine changed it', () => {
    const mine = edit(BASE, { kind: 'removeCriterion', id: 'ISC-2' });
    const result = mergeEngineUpdate(mine, { base: BASE, criteria: engineCriteria(BASE, { 'ISC-2': { checked: true } }) });
    assert.equal(result.text, mine);
    assert.deepEqual(result.userWon, ['ISC-2 removed by the user']);
  });

  it('appends LOG entries after the user’s own additions and sets frontmatter the user did not touch', () => {
    const mine = `${BASE}Note the user typed at the end of the log.\n`;
    const result = mergeEngineUpdate(mine, {
      base: BASE,
      frontmatter: { iteration: 2, status: 'VERIFYING' },
      log: [{ iteration: 2, date: '2026-11-22', phase: 'EXECUTE → VERIFY', criteria: '1/3 passing', work: 'toggle built', failing: ['ISC-2', 'ISC-3'] }],
    });
    const lines = textLines(result.text);
    assert.equal(lines[5], 'iteration: 2');
    assert.equal(lines[3], 'status: VERIFYING');
    assert.ok(result.text.includes('Note the user typed at the end of the log.\n\n### Iteration 2 — 2026-11-22\n- Phase: EXECUTE → VERIFY\n- Criteria: 1/3 passing\n- Work: toggle built\n- Failing: ISC-2, ISC-3'), result.text);
    assert.ok(result.text.startsWith(BASE.slice(0, BASE.indexOf('status:'))));

    const userStatus = BASE.replace('status: IN_PROGRESS', 'status: BLOCKED');
    const kept = mergeEngineUpdate(userStatus, { base: BASE, frontmatter: { status: 'VERIFYING' } });
    assert.equal(kept.text, userStatus);
    assert.deepEqual(kept.userWon, ['status']);
  });

  it('changes nothing for an update that repeats the base', () => {
    const result = mergeEngineUpdate(BASE, { base: BASE, criteria: engineCriteria(BASE), frontmatter: { status: 'IN_PROGRESS' } });
    assert.equal(result.text, BASE);
    assert.deepEqual([result.applied, result.userWon], [[], []]);
  });

  it('keeps CRLF line endings and a BOM through a merge', () => {
    const crlf = `\uFEFF${BASE.replace(/\n/g, '\r\n')}`;
    const result = mergeEngineUpdate(crlf, { base: crlf, criteria: engineCriteria(crlf, { 'ISC-1': { checked: true } }) });
    assert.equal(result.text, crlf.replace('- [ ] ISC-1:', '- [x] ISC-1:'));
  });
});

describe('text changes for editor edits', () => {
  it('touches only the lines that differ, one change per hunk', () => {
    const after = edit(edit(BASE, { kind: 'setChecked', id: 'ISC-1', checked: true }), { kind: 'setChecked', id: 'ISC-A-1', checked: true });
    const changes = textChanges(BASE, after);
    assert.equal(changes.length, 2);
    assert.deepEqual(changes.map((c) => c.text.trimEnd().slice(0, 12)), ['- [x] ISC-1:', '- [x] ISC-A-']);
    assert.equal(applyTextChanges(BASE, changes), after);
  });

  it('handles insertions, removals, CRLF and a last line without an ending', () => {
    const pairs: [string, string][] = [
      ['a\nb\nc', 'a\nx\nb\nc'],
      ['a\r\nb\r\nc\r\n', 'a\r\nc\r\n'],
      ['a\nb', 'a\nb\nc'],
      ['', 'new'],
      ['same', 'same'],
    ];
    for (const [before, after] of pairs) assert.equal(applyTextChanges(before, textChanges(before, after)), after, JSON.stringify([before, after]));
    assert.deepEqual(textChanges('same', 'same'), []);
  });
});

describe('the PRD editor’s view', () => {
  it('carries status, effort, iteration, criteria with outcomes, decisions and log as plain data', () => {
    const view = prdView(parsePrd(BASE), new Map([['ISC-2', 'FAIL' as const]]));
    assert.equal(view.title, 'Merge fixture');
    assert.deepEqual(view.meta, { id: 'PRD-20261122-merge', status: 'IN_PROGRESS', effort: 'FAST', iteration: 1 });
    assert.deepEqual(
      view.criteria.map((c) => [c.id, c.anti, c.priority, c.verify, c.outcome]),
      [
        ['ISC-1', false, 'CRITICAL', 'Grep: dark-mode', undefined],
        ['ISC-2', false, 'CRITICAL', 'CLI: npm run contrast', 'FAIL'],
        ['ISC-3', false, 'NICE', 'Custom', undefined],
        ['ISC-A-1', true, 'CRITICAL', 'Grep: #[0-9a-f]{6}', undefined],
      ],
    );
    assert.deepEqual(view.log[0]!.fields[0], ['phase', 'OBSERVE → THINK']);
  });

  it('sends only the changed row for a tick, and the whole view when more changed', () => {
    const before = prdView(parsePrd(BASE));
    const ticked = prdView(parsePrd(edit(BASE, { kind: 'setChecked', id: 'ISC-2', checked: true })));
    const change = diffPrdView(before, ticked);
    assert.equal(change.kind, 'rows');
    assert.deepEqual(change.kind === 'rows' && change.rows.map((r) => [r.id, r.checked]), [['ISC-2', true]]);
    assert.deepEqual(diffPrdView(before, prdView(parsePrd(BASE))), { kind: 'none' });
    assert.equal(diffPrdView(before, prdView(parsePrd(BASE.replace('status: IN_PROGRESS', 'status: DONE')))).kind, 'all');
  });
});
