import * as assert from 'node:assert/strict';
import { loadEffortTable } from '../../../src/model/effort-table';
import { lintPrd, parsePrd, VERIFY_LINE_TO_FILL, type PrdDiagnostic } from '../../../src/prd';
import { fixture } from './prd-helpers';

const GOOD = 'Settings page shows a dark mode toggle switch to users';

function doc(criteria: string[], { effort = 'instant', anti = true } = {}): string {
  return [
    '---',
    'prd: true',
    `effort_level: ${effort}`,
    '---',
    '# T',
    '',
    '## Problem Space',
    'P.',
    '',
    '## Ideal State Criteria',
    ...criteria.map((c, i) => (c.startsWith('- ') ? c : `- [ ] ISC-${i + 1}: ${c} | Verify: Custom`)),
    '',
    '## Anti-Criteria',
    ...(anti ? ['- [ ] ISC-A-1: No secret value appears in any server log file | Verify: Custom'] : []),
    '',
  ].join('\n');
}

const lint = (text: string, rule: string, options = {}) => lintPrd(parsePrd(text), options).filter((d: PrdDiagnostic) => d.rule === rule);

describe('prd ISC linter', () => {
  it('passes a document that follows every rule', () => {
    assert.deepEqual(lintPrd(parsePrd(doc([GOOD]))), []);
  });

  it('isc-length: fewer than 8 or more than 12 words', () => {
    assert.equal(lint(doc(['Too short to say anything']), 'isc-length').length, 1);
    assert.equal(lint(doc(['One two three four five six seven eight nine ten eleven twelve thirteen']), 'isc-length').length, 1);
    assert.deepEqual(lint(doc(['One two three four five six seven eight', 'One two three four five six seven eight nine ten eleven twelve']), 'isc-length'), []);
    const [d] = lint(doc(['Too short']), 'isc-length');
    assert.deepEqual([d!.line, d!.column, d!.severity], [11, 14, 'warning']);
  });

  it('isc-compound: "and", "plus", "including", or "with" joining two clauses', () => {
    for (const text of ['Login form rejects empty passwords and shows an inline error', 'Export file has a header row plus one row per order', 'Report covers every region including Europe Asia and both Americas', 'Health endpoint returns status 200 within a second with body listing every dependency']) {
      assert.equal(lint(doc([text]), 'isc-compound').length, 1, text);
    }
    for (const text of [GOOD, 'Login form rejects empty password with inline error', 'Criterion with an unknown verify type stays in the model']) {
      assert.deepEqual(lint(doc([text]), 'isc-compound'), [], text);
    }
  });

  it('isc-action: an imperative verb instead of a state', () => {
    for (const verb of ['Add', 'Implement', 'Create', 'Fix', 'Update', 'Make', 'Write', 'Refactor', 'Ensure']) {
      const [d] = lint(doc([`${verb} the settings page dark mode toggle switch for users`]), 'isc-action');
      assert.ok(d, verb);
      assert.equal(d.column, 14);
    }
    assert.deepEqual(lint(doc([GOOD, 'Build task finishes without errors on a clean checkout']), 'isc-action'), []);
  });

  it('isc-scope-word: "all", "every", "complete" without an enumeration', () => {
    assert.equal(lint(doc(['Every settings page loads in under a second on laptops']), 'isc-scope-word').length, 1);
    assert.equal(lint(doc(['Migration leaves the complete order history readable by support staff']), 'isc-scope-word').length, 1);
    assert.deepEqual(lint(doc(['Digest covers all 7 days of the reporting period']), 'isc-scope-word'), []);
    assert.deepEqual(lint(doc(['All pages (home, settings, profile) load within one second']), 'isc-scope-word'), []);
    assert.deepEqual(lint(doc([GOOD]), 'isc-scope-word'), []);
  });

  it('isc-count: fewer criteria than the effort level asks for, resolving aliases and the table in force', () => {
    const [d] = lint(doc([GOOD], { effort: 'QUICK' }), 'isc-count');
    assert.match(d!.message, /1 criteria, fewer than the 4 that effort level FAST asks for/);
    assert.equal(d!.line, 10, 'at the criteria heading');
    assert.deepEqual(lint(doc([GOOD, GOOD, GOOD, GOOD], { effort: 'fast' }), 'isc-count'), []);
    assert.equal(lint(doc([GOOD]), 'isc-count').length, 0, 'INSTANT asks for none');
    const noEffort = doc([GOOD]).replace('effort_level: instant\n', '');
    assert.match(lint(noEffort, 'isc-count')[0]!.message, /effort level STANDARD/);
    const table = loadEffortTable({ file: 'e.yaml', text: 'version: 1\nlevels:\n  INSTANT:\n    minCriteria: 2\n' }).table;
    assert.equal(lint(doc([GOOD]), 'isc-count', { effortTable: table }).length, 1);
    const pai = parsePrd(fixture('pai-v2.md'));
    assert.match(lintPrd(pai).find((x) => x.rule === 'isc-count')!.message, /EXTENDED/);
  });

  it('effort-level: an effort that is neither a level nor an alias', () => {
    const [d] = lint(doc([GOOD], { effort: 'ludicrous' }), 'effort-level');
    assert.match(d!.message, /unknown effort level "ludicrous"/);
    assert.deepEqual([d!.line, d!.column], [3, 1]);
    assert.deepEqual(lint(doc([GOOD], { effort: 'Thorough' }), 'effort-level'), []);
  });

  it('isc-no-anti: no anti-criterion at all', () => {
    const [d] = lint(doc([GOOD], { anti: false }), 'isc-no-anti');
    assert.equal(d!.line, 13, 'at the Anti-Criteria heading');
    assert.deepEqual(lint(doc([GOOD]), 'isc-no-anti'), []);
  });

  it('isc-no-verify: no verification method, fixed by a Custom stub to fill in', () => {
    const text = doc([`- [ ] ISC-1: ${GOOD}  `]);
    const [d] = lint(text, 'isc-no-verify');
    assert.equal(d!.line, 11);
    assert.deepEqual(d!.fix!.edits, [{ range: { start: { line: 10, character: 13 + GOOD.length }, end: { line: 10, character: 13 + GOOD.length } }, newText: VERIFY_LINE_TO_FILL }]);
    const lines = text.split('\n');
    const edit = d!.fix!.edits[0]!;
    const line = lines[10]!;
    lines[10] = line.slice(0, edit.range.start.character) + edit.newText + line.slice(edit.range.end.character);
    const fixed = parsePrd(lines.join('\n'));
    assert.deepEqual(fixed.criteria[0]!.verify, { type: 'CUSTOM', description: 'describe how to check' });
    assert.ok(lines[10]!.endsWith('check  '), 'trailing blanks stay after the stub');
    assert.deepEqual(lint(doc([GOOD]), 'isc-no-verify'), []);
    assert.deepEqual(lint(doc([`- [ ] ISC-1: ${GOOD} | Verify: Bogus`]), 'isc-no-verify'), [], 'a written but unknown verify is the parser\'s error, not this warning');
  });

  it('reports only warnings, each with a rule id', () => {
    const all = lintPrd(parsePrd(fixture('lint-cases.md')));
    assert.ok(all.length >= 7);
    assert.ok(all.every((d) => d.severity === 'warning' && /^(isc|effort)-/.test(d.rule)));
  });
});
