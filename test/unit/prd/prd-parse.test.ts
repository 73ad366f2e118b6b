import * as assert from 'node:assert/strict';
import { checkPrd, criterionData, parsePrd, toCoreCriterion, type PrdDiagnostic } from '../../../src/prd';
import { fixture } from './prd-helpers';

const rules = (ds: readonly PrdDiagnostic[]) => ds.map((d) => d.rule);
const only = (ds: readonly PrdDiagnostic[], rule: string) => ds.filter((d) => d.rule === rule);

const PRD = (criteria: string, extra = '') => `---\nprd: true\neffort_level: instant\n---\n# T\n\n## Problem Space\nP.\n\n## Ideal State Criteria\n${criteria}\n\n## Anti-Criteria\n- [ ] ISC-A-1: No secret value appears in any log file at all | Verify: Custom\n${extra}`;

describe('prd parse: the seed 000 §5.3 format', () => {
  const doc = parsePrd(fixture('seed-000.md'));

  it('reads the frontmatter, title and every section of the seed example', () => {
    assert.equal(doc.dialect, 'ideal-state');
    assert.deepEqual(doc.meta, { id: 'PRD-20260217-summary-weekly', status: 'COMPLETE', effort: 'STANDARD', created: '2026-02-17', updated: '2026-02-17', iteration: 1, maxIterations: 10 });
    assert.equal(doc.frontmatter?.data.workflow_id, 'digest.weekly.v1');
    assert.deepEqual(doc.title, { text: 'Weekly Digest: Feb 10-16', line: 14 });
    assert.equal(doc.problemSpace, 'Synthesize weekly activity into digestible summary covering all source types.');
    assert.deepEqual(doc.keyFiles, ['sources/notes/', 'sources/bookmarks/', 'sources/slack/']);
    assert.deepEqual(doc.constraints, ['Must cover all 7 days', 'Exclude personal/private content', 'Max 500 words']);
    assert.deepEqual(doc.decisions.map(({ line: _l, ...d }) => d), [
      { date: '2026-02-17', title: 'Excluded Twitter from digest', decision: 'Omit Twitter mentions from weekly digest', rationale: 'Too high volume, low signal', alternatives: ['Include only liked tweets', 'include only threads'] },
    ]);
    assert.deepEqual(doc.log.map((e) => [e.title, e.fields]), [['Iteration 1 — 2026-02-17', { phase: 'VERIFY → COMPLETE', criteria: '4/4 passing', work: 'Generated digest, verified all criteria', failing: 'none' }]]);
    assert.deepEqual(doc.diagnostics, []);
  });

  it('reads criteria with domains, checkboxes and verify methods mapped onto the schema', () => {
    assert.deepEqual(
      doc.criteria.map((c) => [c.id, c.kind, c.domain, c.checked, c.priority, c.source, c.verify, c.line + 1]),
      [
        ['ISC-COMP-001', 'criterion', 'Completeness', true, 'CRITICAL', 'EXPLICIT', { type: 'GREP', pattern: 'date mentions', expect: 'present' }, 40],
        ['ISC-COMP-002', 'criterion', 'Completeness', true, 'CRITICAL', 'EXPLICIT', { type: 'CUSTOM', description: 'Includes 3+ significant items per day' }, 41],
        ['ISC-QUAL-001', 'criterion', 'Quality', true, 'CRITICAL', 'EXPLICIT', { type: 'CUSTOM', description: 'No copy-paste from sources >10 words' }, 44],
        ['ISC-QUAL-002', 'criterion', 'Quality', true, 'CRITICAL', 'EXPLICIT', { type: 'GREP', pattern: 'URLs/links', expect: 'present' }, 45],
        ['ISC-A-001', 'anti-criterion', undefined, true, 'CRITICAL', 'EXPLICIT', { type: 'CUSTOM', description: 'No personal information exposed' }, 48],
      ],
    );
  });

  it('maps every verify type, in any case, onto the verification method union', () => {
    const doc = parsePrd(fixture('inline-tags.md'));
    assert.deepEqual(
      doc.criteria.map((c) => c.verify),
      [
        { type: 'CLI', command: 'curl -fsS localhost:3000/health' },
        { type: 'GREP', pattern: 'X-Request-Id', expect: 'present' },
        { type: 'READ', path: 'logs/server.log' },
        { type: 'TEST', test: 'npm run test:rate' },
        { type: 'STATIC', check: 'diagnostics: no errors in src/**' },
        { type: 'BROWSER', scenario: 'open /login and see the form' },
        { type: 'TASK', task: 'build' },
        { type: 'CUSTOM', description: 'a reviewer reads docs/api.md' },
        { type: 'GREP', pattern: 'at Object\\.', expect: 'present' },
        { type: 'CUSTOM', description: 'No secret value appears in any server log file' },
      ],
    );
  });

  it('reads the older inline tags: [E]/[I]/[R] confidence and [CRITICAL]/[IMPORTANT]/[NICE] priority, no tag meaning CRITICAL', () => {
    const doc = parsePrd(fixture('inline-tags.md'));
    assert.deepEqual(
      doc.criteria.map((c) => [c.id, c.kind, c.priority, c.source, c.text]),
      [
        ['ISC-API-001', 'criterion', 'CRITICAL', 'EXPLICIT', 'Health endpoint returns status 200 with empty body'],
        ['ISC-API-002', 'criterion', 'NICE', 'INFERRED', 'Error responses include a request id header'],
        ['ISC-API-003', 'criterion', 'IMPORTANT', 'IMPLICIT', 'Server logs one line per request at info level'],
        ['ISC-API-004', 'criterion', 'IMPORTANT', 'INFERRED', 'Rate limiter rejects the 101st request within one minute'],
        ['ISC-API-005', 'criterion', 'CRITICAL', 'EXPLICIT', 'Static analysis reports zero type errors in the source tree'],
        ['ISC-API-006', 'criterion', 'CRITICAL', 'EXPLICIT', 'Login page renders the sign-in form in a browser'],
        ['ISC-API-007', 'criterion', 'CRITICAL', 'EXPLICIT', 'Build task finishes without errors on a clean checkout'],
        ['ISC-API-008', 'criterion', 'NICE', 'EXPLICIT', 'Docs page describes each endpoint with one example'],
        ['ISC-A-001', 'anti-criterion', 'CRITICAL', 'EXPLICIT', 'No endpoint returns a stack trace to the client'],
        ['ISC-A-SEC-002', 'anti-criterion', 'CRITICAL', 'IMPLICIT', 'No secret value appears in any server log file'],
      ],
    );
    assert.deepEqual(rules(doc.diagnostics), []);
  });

  it('does not read structure inside fenced code blocks or HTML comments', () => {
    const fenced = parsePrd(fixture('fenced-code.md'));
    assert.deepEqual(fenced.criteria.map((c) => c.id), ['ISC-1', 'ISC-2', 'ISC-A-1']);
    assert.deepEqual(fenced.sections.map((s) => s.kind), ['problem-space', 'criteria', 'anti-criteria', 'log']);
    assert.deepEqual(fenced.log, []);
    assert.deepEqual(rules(fenced.diagnostics), [], 'the duplicate ISC-1 in the fence is not a duplicate');
    const comments = parsePrd(fixture('html-comments.md'));
    assert.deepEqual(comments.criteria.map((c) => c.id), ['ISC-1', 'ISC-2', 'ISC-A-1']);
    assert.ok(!comments.sections.some((s) => s.kind === 'log'));
  });

  it('keeps prose between criteria and unknown sections out of the criteria', () => {
    const prose = parsePrd(fixture('prose-between.md'));
    assert.deepEqual(prose.criteria.map((c) => c.id), ['ISC-1', 'ISC-2', 'ISC-A-1']);
    assert.deepEqual(rules(prose.diagnostics), []);
    const unknown = parsePrd(fixture('unknown-sections.md'));
    assert.deepEqual(unknown.sections.map((s) => [s.heading, s.kind]), [
      ['Background', 'unknown'],
      ['Problem Space', 'problem-space'],
      ['Risks & Rabbit Holes', 'unknown'],
      ['Ideal State Criteria', 'criteria'],
      ['Appendix', 'unknown'],
      ['Anti-Criteria', 'anti-criteria'],
    ]);
    assert.equal(unknown.criteria.length, 5);
  });

  it('reads headings in any case, with closing hashes, and star or plus bullets with [X]', () => {
    assert.deepEqual(parsePrd(fixture('case-insensitive.md')).criteria.map((c) => [c.id, c.checked, c.kind]), [
      ['ISC-1', false, 'criterion'],
      ['ISC-2', true, 'criterion'],
      ['ISC-A-1', false, 'anti-criterion'],
    ]);
    assert.deepEqual(parsePrd(fixture('headings-variety.md')).criteria.map((c) => c.id), ['ISC-1']);
    assert.deepEqual(parsePrd(fixture('nested-lists.md')).criteria.map((c) => [c.id, c.checked]), [
      ['ISC-1', false],
      ['ISC-2', false],
      ['ISC-3', true],
    ]);
  });

  it('reads a PAI v4 template: criteria and anti-criteria as ### groups of one section', () => {
    const doc = parsePrd(fixture('pai-v4-template.md'));
    assert.deepEqual(doc.criteria.map((c) => [c.id, c.kind, c.domain]), [
      ['ISC-C-1', 'criterion', undefined],
      ['ISC-C-2', 'criterion', undefined],
      ['ISC-A-1', 'anti-criterion', undefined],
    ]);
    assert.equal(doc.meta.effort, 'Extended');
    assert.equal(doc.log.length, 1);
  });
});

describe('prd parse: PAI v2', () => {
  const doc = parsePrd(fixture('pai-v2.md'));

  it('reads the v2 frontmatter into the same meta fields', () => {
    assert.equal(doc.dialect, 'pai-v2');
    assert.deepEqual(doc.meta, {
      id: '20260224-020000_dark-mode-toggle',
      title: 'Add dark mode toggle to settings page',
      effort: 'extended',
      phase: 'verify',
      progress: '2/4',
      mode: 'interactive',
      created: '2026-02-24T02:00:00Z',
      updated: '2026-02-24T02:40:00Z',
    });
  });

  it('reads Context, Criteria (with ISC-A- anti-criteria and their "Anti:" prefix), Decisions and Verification', () => {
    assert.match(doc.context!, /^The user asked for a dark mode toggle/);
    assert.deepEqual(doc.criteria.map((c) => [c.id, c.kind, c.checked, c.text]), [
      ['ISC-1', 'criterion', true, 'Settings page shows a labelled dark mode toggle switch'],
      ['ISC-2', 'criterion', true, 'Toggling the switch applies the dark theme without reload'],
      ['ISC-3', 'criterion', false, 'Chosen theme persists in local storage across page reloads'],
      ['ISC-4', 'criterion', false, 'Dark theme text contrast meets WCAG AA on every page'],
      ['ISC-A-1', 'anti-criterion', false, 'No flash of light theme appears on initial page load'],
    ]);
    assert.deepEqual(doc.decisions.map((d) => [d.date, d.title]), [
      ['2026-02-24 02:10', 'Chose CSS variables over a second stylesheet because of bundle size'],
      ['2026-02-24 02:15', 'Rejected a system-only setting because the user asked for a toggle'],
    ]);
    assert.deepEqual(doc.evidence, { 'ISC-1': 'Screenshot confirms the toggle renders in the settings panel', 'ISC-2': '`bun test theme` passes, 6/6 tests green' });
    assert.deepEqual(only(doc.diagnostics, 'missing-section'), [], 'v2 has no Problem Space and needs none');
  });
});

describe('prd parse: diagnostics, never a crash, nothing dropped', () => {
  it('reports bad YAML at its line and still reads the body', () => {
    const doc = parsePrd(fixture('bad-yaml.md'));
    const [yaml] = only(doc.diagnostics, 'yaml-syntax');
    assert.equal(yaml?.severity, 'error');
    assert.equal(yaml?.line, 5);
    assert.deepEqual(doc.criteria.map((c) => c.id), ['ISC-1']);
    assert.deepEqual(only(parsePrd(fixture('seed-000.md')).diagnostics, 'yaml-syntax'), []);
  });

  it('reports a frontmatter that is never closed, and a known field with the wrong kind of value', () => {
    const open = parsePrd(fixture('unclosed-frontmatter.md'));
    assert.deepEqual(only(open.diagnostics, 'frontmatter-unclosed').map((d) => [d.line, d.severity]), [[1, 'error']]);
    assert.equal(open.criteria.length, 1);
    const field = parsePrd('---\nprd: true\niteration: soon\nprogress: half\n---\n');
    assert.deepEqual(only(field.diagnostics, 'frontmatter-field').map((d) => [d.line, d.column, d.severity]), [[3, 1, 'warning'], [4, 1, 'warning']]);
    assert.match(only(field.diagnostics, 'frontmatter-field')[1]!.message, /progress looks like 3\/8/);
    assert.deepEqual(only(parsePrd(fixture('frontmatter-comments.md')).diagnostics, 'frontmatter-field'), []);
  });

  it('reports duplicate ids on the later one, with the next free id as a fix', () => {
    const doc = parsePrd(fixture('duplicate-ids.md'));
    const dups = only(doc.diagnostics, 'duplicate-id');
    assert.deepEqual(dups.map((d) => [d.line, d.column, d.severity]), [[12, 7, 'error']]);
    assert.deepEqual(dups[0]!.fix?.edits, [{ range: { start: { line: 11, character: 6 }, end: { line: 11, character: 17 } }, newText: 'ISC-DUP-003' }]);
    assert.equal(doc.criteria.length, 4, 'both duplicates are kept');
    assert.deepEqual(only(parsePrd(fixture('seed-000.md')).diagnostics, 'duplicate-id'), []);
  });

  it('reports an unknown verify type as an error and keeps the criterion without a method', () => {
    const doc = parsePrd(fixture('unknown-verify.md'));
    const unknown = only(doc.diagnostics, 'unknown-verify-type');
    assert.deepEqual(unknown.map((d) => [d.line, d.column, d.severity]), [[11, 83], [12, 84]].map(([l, c]) => [l, c, 'error']));
    assert.match(unknown[0]!.message, /unknown verification type "Telepathy"; use one of CLI, Test, Task, Grep, Read, Static, Custom, Browser/);
    assert.deepEqual(only(doc.diagnostics, 'verify-argument-missing').map((d) => [d.line, d.severity]), [[13, 'warning']]);
    assert.deepEqual(doc.criteria.map((c) => [c.id, c.verify]), [['ISC-1', undefined], ['ISC-2', undefined], ['ISC-3', undefined], ['ISC-A-1', { type: 'CUSTOM', description: 'No criterion is dropped because its verify part is wrong' }]]);
    assert.deepEqual(only(parsePrd(fixture('inline-tags.md')).diagnostics, 'unknown-verify-type'), []);
  });

  it('reports malformed criterion lines and ids with mechanical fixes', () => {
    const doc = parsePrd(fixture('malformed-lines.md'));
    const found = doc.diagnostics.filter((d) => d.rule === 'malformed-criterion' || d.rule === 'malformed-id');
    assert.deepEqual(found.map((d) => [d.line, d.rule, d.fix?.edits[0]?.newText]), [
      [11, 'malformed-criterion', 'ISC-11: '],
      [12, 'malformed-criterion', ':'],
      [13, 'malformed-criterion', '[ ] '],
      [14, 'malformed-id', 'ISC-9'],
      [15, 'malformed-id', 'ISC-10'],
      [16, 'malformed-criterion', undefined],
      [20, 'malformed-id', 'ISC-A-1'],
    ]);
    assert.ok(found.every((d) => d.severity === 'error'));
    assert.deepEqual(doc.criteria.map((c) => c.id), ['ISC-', 'isc-5', 'ISC-6', 'ISC-7', 'ISC-8']);
    assert.deepEqual(parsePrd(fixture('nested-lists.md')).diagnostics.filter((d) => d.rule.startsWith('malformed')), []);
  });

  it('reports a missing section, and not one that is there', () => {
    assert.deepEqual(only(parsePrd(fixture('missing-sections.md')).diagnostics, 'missing-section').map((d) => d.message), [
      'no "## Problem Space" section; add one',
      'no "## Ideal State Criteria" section; add one (criteria are read only under it)',
    ]);
    assert.deepEqual(only(parsePrd(fixture('no-frontmatter.md')).diagnostics, 'missing-section'), []);
  });

  it('warns about a criterion outside the criteria sections and about an unclosed code block', () => {
    assert.deepEqual(only(parsePrd(fixture('criteria-outside.md')).diagnostics, 'criterion-outside-section').map((d) => [d.line, d.column]), [[4, 7]]);
    assert.deepEqual(only(parsePrd(fixture('seed-000.md')).diagnostics, 'criterion-outside-section'), []);
    assert.deepEqual(only(parsePrd(fixture('unclosed-fence.md')).diagnostics, 'unclosed-block').map((d) => d.line), [9]);
    assert.deepEqual(only(parsePrd(fixture('fenced-code.md')).diagnostics, 'unclosed-block'), []);
  });

  it('gives 1-based lines and columns plus a 0-based range', () => {
    const { diagnostics } = checkPrd(PRD('- [ ] ISC-1: Health endpoint answers within two hundred milliseconds | Verify: Nope'));
    const d = only(diagnostics, 'unknown-verify-type')[0]!;
    assert.deepEqual([d.line, d.column], [11, 80]);
    assert.deepEqual(d.range, { start: { line: 10, character: 79 }, end: { line: 10, character: 83 } });
  });

  it('survives hostile input without throwing', () => {
    for (const text of ['---', '---\n---', '\uFEFF', '\r\r\n\n', '- [ ] ISC-1:', '## Ideal State Criteria\n- [ ] ISC-1: | Verify:', '```\n', '<!--', '---\n: : :\n---\n## Criteria\n- [x]', '#'.repeat(7), '## Criteria\n- [ ] ISC-1: x | Verify: CLI: | Verify: Grep']) {
      assert.doesNotThrow(() => checkPrd(text), JSON.stringify(text));
    }
  });
});

describe('prd criteria as core schema rows', () => {
  it('converts every criterion of the seed example into a valid core criterion, and refuses a malformed id', () => {
    const at = '2026-11-21T10:00:00.000Z';
    for (const c of parsePrd(fixture('seed-000.md')).criteria) {
      const r = toCoreCriterion(criterionData(c), at);
      assert.ok(r.ok, r.ok ? '' : r.message);
      assert.equal(r.criterion.status, 'DONE');
      assert.equal(r.criterion.kind, c.kind);
    }
    const bad = parsePrd(fixture('malformed-lines.md')).criteria.find((c) => c.id === 'isc-5')!;
    assert.equal(toCoreCriterion(criterionData(bad), at).ok, false);
  });
});
