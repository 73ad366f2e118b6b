import * as assert from 'node:assert/strict';
import { applyEdits, criterionData, joinLines, parsePrd, PrdEditError, type PrdEdit } from '../../../src/prd';
import { changedRegion, fixture, VARIANTS } from './prd-helpers';

const SEED = fixture('seed-000.md');

function edit(text: string, ...edits: PrdEdit[]): string {
  return applyEdits(parsePrd(text), edits);
}

describe('prd edits touch only the lines that show them', () => {
  it('a batch of edits gives the text one edit at a time gives, with one parse for in-place rewrites of different criteria', () => {
    const ids = parsePrd(SEED).criteria.map((c) => c.id);
    // A small deterministic generator, so a failure names the batch it failed on.
    let seed = 7;
    const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), Math.floor(seed / 65536) % n);
    const kinds: ((id: string) => PrdEdit)[] = [
      (id) => ({ kind: 'setChecked', id, checked: next(2) === 0 }),
      (id) => ({ kind: 'setText', id, text: `Rewritten criterion text number ${next(100)} for the batch` }),
      (id) => ({ kind: 'setPriority', id, priority: (['CRITICAL', 'IMPORTANT', 'NICE', undefined] as const)[next(4)] }),
      (id) => ({ kind: 'setSource', id, source: (['EXPLICIT', 'INFERRED', undefined] as const)[next(3)] }),
      (id) => ({ kind: 'setVerify', id, verify: next(2) === 0 ? { type: 'CLI', command: `npm test -- ${next(9)}` } : undefined }),
      () => ({ kind: 'appendLog', entry: { iteration: 1, date: '2026-11-27', phase: 'VERIFY', criteria: '1/2 passing', work: `batch ${next(50)}`, failing: [] } }),
      () => ({ kind: 'setFrontmatter', key: 'iteration', value: next(5) }),
      () => ({ kind: 'addCriterion', domain: 'quality', criterion: { text: `Each added item ${next(1000)} is checked in the batch test` } }),
    ];
    // Three criteria only, so batches often come back to a criterion an edit just rewrote.
    const few = [ids[0]!, ids[1]!, ids.at(-1)!];
    for (let round = 0; round < 200; round++) {
      const edits = Array.from({ length: 1 + next(8) }, () => kinds[next(kinds.length)]!(few[next(few.length)]!));
      const oneByOne = edits.reduce((text, e) => applyEdits(parsePrd(text), [e]), SEED);
      assert.equal(applyEdits(parsePrd(SEED), edits), oneByOne, JSON.stringify(edits));
    }
  });

  it('setChecked flips one checkbox and nothing else', () => {
    const after = edit(SEED, { kind: 'setChecked', id: 'ISC-QUAL-001', checked: false });
    assert.deepEqual(changedRegion(SEED, after), {
      at: 43,
      removed: ['- [x] ISC-QUAL-001: No copy-paste from sources >10 words | Verify: Custom'],
      added: ['- [ ] ISC-QUAL-001: No copy-paste from sources >10 words | Verify: Custom'],
    });
    assert.equal(edit(SEED, { kind: 'setChecked', id: 'ISC-QUAL-001', checked: true }), SEED, 'already checked: no change');
  });

  it('setText, setVerify, setPriority and setSource rewrite only their part of the line', () => {
    const line = '- [ ]  ISC-7 :  [I]   Old text stays   |  Verify:  grep:  x   \t';
    const text = `## Ideal State Criteria\n${line}\n`;
    const lineOf = (t: string) => t.split('\n')[1];
    assert.equal(lineOf(edit(text, { kind: 'setText', id: 'ISC-7', text: 'New text' })), '- [ ]  ISC-7 :  [I]   New text   |  Verify:  grep:  x   \t');
    assert.equal(lineOf(edit(text, { kind: 'setVerify', id: 'ISC-7', verify: { type: 'CLI', command: 'npm test' } })), '- [ ]  ISC-7 :  [I]   Old text stays | Verify: CLI: npm test   \t');
    assert.equal(lineOf(edit(text, { kind: 'setVerify', id: 'ISC-7', verify: undefined })), '- [ ]  ISC-7 :  [I]   Old text stays   \t');
    assert.equal(lineOf(edit(text, { kind: 'setPriority', id: 'ISC-7', priority: 'NICE' })), '- [ ]  ISC-7 :  [I] [NICE] Old text stays   |  Verify:  grep:  x   \t');
    assert.equal(lineOf(edit(text, { kind: 'setSource', id: 'ISC-7', source: undefined })), '- [ ]  ISC-7 :  Old text stays   |  Verify:  grep:  x   \t');
    const custom = parsePrd(edit(SEED, { kind: 'setText', id: 'ISC-COMP-002', text: 'Includes three significant items for each day of the week' }));
    assert.deepEqual(custom.criteria[1]!.verify, { type: 'CUSTOM', description: 'Includes three significant items for each day of the week' }, 'a bare Custom follows the text');
  });

  it('addCriterion goes after the last one of its domain, a new domain at the end of the section, anti-criteria in their section', () => {
    const quality = edit(SEED, { kind: 'addCriterion', domain: 'quality', criterion: { text: 'Each item links to its original source document', verify: { type: 'GREP', pattern: 'https://', expect: 'present' } } });
    assert.deepEqual(changedRegion(SEED, quality), { at: 45, removed: [], added: ['- [ ] ISC-QUAL-003: Each item links to its original source document | Verify: Grep: https://'] });
    const style = edit(SEED, { kind: 'addCriterion', domain: 'Style', criterion: { id: 'ISC-STY-001', text: 'Digest uses second person voice in every summary line', priority: 'NICE', source: 'INFERRED' } });
    assert.deepEqual(changedRegion(SEED, style), { at: 46, removed: [], added: ['### Style', '- [ ] ISC-STY-001: [I] [NICE] Digest uses second person voice in every summary line', ''] });
    const anti = edit(SEED, { kind: 'addCriterion', anti: true, criterion: { text: 'No item quotes a private message verbatim', verify: { type: 'CUSTOM', description: 'No item quotes a private message verbatim' } } });
    assert.deepEqual(changedRegion(SEED, anti), { at: 48, removed: [], added: ['- [ ] ISC-A-002: No item quotes a private message verbatim | Verify: Custom'] });
    assert.equal(parsePrd(anti).criteria.at(-1)!.kind, 'anti-criterion');
  });

  it('addCriterion creates the section when there is none, and keeps a file without a final newline that way', () => {
    const bare = '# Title\n\nSome prose.';
    const after = edit(bare, { kind: 'addCriterion', criterion: { id: 'ISC-1', text: 'A' } });
    assert.equal(after, '# Title\n\nSome prose.\n\n## Ideal State Criteria\n- [ ] ISC-1: A');
    assert.equal(edit('', { kind: 'addCriterion', anti: true, criterion: { text: 'B' } }), '## Anti-Criteria\n- [ ] ISC-A-1: B\n', 'an empty file gets a final newline');
    const crlf = edit('# T\r\n', { kind: 'addCriterion', criterion: { text: 'C' } });
    assert.equal(crlf, '# T\r\n\r\n## Ideal State Criteria\r\n- [ ] ISC-1: C\r\n');
  });

  it('removeCriterion removes one line', () => {
    const after = edit(SEED, { kind: 'removeCriterion', id: 'ISC-COMP-002' });
    assert.deepEqual(changedRegion(SEED, after), { at: 40, removed: ['- [x] ISC-COMP-002: Includes 3+ significant items per day | Verify: Custom'], added: [] });
  });

  it('appendLog adds an entry after the last one in LOG, or a LOG section at the end', () => {
    const entry = { iteration: 2, date: '2026-02-18', phase: 'EXECUTE → VERIFY', criteria: '3/4 passing', work: 'Added attributions', failing: ['ISC-QUAL-002'] };
    const after = edit(SEED, { kind: 'appendLog', entry });
    assert.deepEqual(changedRegion(SEED, after), { at: 57, removed: [], added: ['### Iteration 2 — 2026-02-18', '- Phase: EXECUTE → VERIFY', '- Criteria: 3/4 passing', '- Work: Added attributions', '- Failing: ISC-QUAL-002', ''] });
    assert.deepEqual(parsePrd(after).log.at(-1)!.fields, { phase: 'EXECUTE → VERIFY', criteria: '3/4 passing', work: 'Added attributions', failing: 'ISC-QUAL-002' });
    const fresh = edit('# T\n', { kind: 'appendLog', entry: { ...entry, failing: [] } });
    assert.equal(fresh, '# T\n\n## LOG\n\n### Iteration 2 — 2026-02-18\n- Phase: EXECUTE → VERIFY\n- Criteria: 3/4 passing\n- Work: Added attributions\n- Failing: none\n');
  });

  it('setFrontmatter changes one value in place, keeping comments, quoting and order', () => {
    const text = fixture('frontmatter-comments.md');
    const status = edit(text, { kind: 'setFrontmatter', key: 'effort_level', value: 'EXTENDED' });
    assert.deepEqual(changedRegion(text, status), { at: 5, removed: ['effort_level: STANDARD     # the default'], added: ['effort_level: EXTENDED     # the default'] });
    const added = edit(text, { kind: 'setFrontmatter', key: 'run_id', value: 'run-abc123' });
    assert.deepEqual(changedRegion(text, added), { at: 12, removed: [], added: ['run_id: run-abc123'] });
    const list = edit(SEED, { kind: 'setFrontmatter', key: 'iteration', value: 2 }, { kind: 'setFrontmatter', key: 'failing', value: ['ISC-1', 'ISC-2'] });
    assert.deepEqual(changedRegion(SEED, list).added, ['iteration: 2', 'max_iterations: 10', 'failing: [ISC-1, ISC-2]']);
    assert.equal(edit('# T\n', { kind: 'setFrontmatter', key: 'prd', value: true }), '---\nprd: true\n---\n# T\n');
  });

  it('refuses what it cannot do, leaving the text alone', () => {
    assert.throws(() => edit(SEED, { kind: 'setChecked', id: 'ISC-404', checked: true }), PrdEditError);
    assert.throws(() => edit(fixture('bad-yaml.md'), { kind: 'setFrontmatter', key: 'status', value: 'DRAFT' }), /YAML errors/);
  });

  it('keeps CRLF and the BOM on edited and inserted lines', () => {
    const text = VARIANTS['BOM+CRLF']!(SEED);
    const after = edit(text, { kind: 'setChecked', id: 'ISC-A-001', checked: false }, { kind: 'addCriterion', domain: 'Quality', criterion: { text: 'X' } });
    assert.ok(after.startsWith('\uFEFF---\r\n'));
    assert.ok(!/[^\r]\n/.test(after), 'no bare LF');
    assert.equal(after, VARIANTS['BOM+CRLF']!(edit(SEED, { kind: 'setChecked', id: 'ISC-A-001', checked: false }, { kind: 'addCriterion', domain: 'Quality', criterion: { text: 'X' } })));
  });
});

/** A small seeded generator (mulberry32), so a failure can be replayed from its seed. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  return { next, int, pick, chance: (p: number) => next() < p };
}

type Rng = ReturnType<typeof rng>;
const WORDS = ['page', 'shows', 'toggle', 'Ünïcode', '世界', 'error', 'log', 'value', 'with', 'and', 'file', 'all', '👋', 'café', '|', 'x:y'];
const VERIFIES = ['', ' | Verify: Custom', ' | Verify: CLI: npm test', ' | verify: grep: a|b', ' | Verify: Read: README.md', ' | Verify: Bogus: x', ' |Verify:Test:t'];

function words(r: Rng, n: number): string {
  return Array.from({ length: n }, () => r.pick(WORDS.filter((w) => w !== '|'))).join(' ');
}

function criterionLine(r: Rng, id: string): string {
  const tags = r.pick(['', '[E] ', '[I] [NICE] ', '[r]  [important] ', '[CRITICAL] ']);
  return `${r.pick(['-', '*', '  -'])} [${r.pick([' ', 'x', 'X'])}]${r.pick([' ', '  '])}${id}:${r.pick([' ', '', '  '])}${tags}${words(r, 1 + r.int(10))}${r.pick(VERIFIES)}${r.pick(['', ' ', '\t', '  '])}`;
}

function generate(r: Rng): string {
  const out: string[] = [];
  if (r.chance(0.7)) out.push('---', 'prd: true', `id: PRD-${r.int(99999)}`, r.pick(['status: DRAFT', 'status: [oops', 'effort_level: fast  # c', 'iteration: 1']), '---');
  if (r.chance(0.8)) out.push(`# ${words(r, 3)}`, '');
  let n = 0;
  const sections = ['Problem Space', 'Ideal State Criteria', 'Notes', 'Anti-Criteria', 'LOG', 'Criteria'];
  for (let s = 0, count = 1 + r.int(6); s < count; s++) {
    const name = r.pick(sections);
    out.push(`## ${name}`);
    for (let i = 0, lines = r.int(8); i < lines; i++) {
      const k = r.int(10);
      if (k < 4) out.push(criterionLine(r, name === 'Anti-Criteria' || r.chance(0.2) ? `ISC-A-${++n}` : r.chance(0.1) ? `ISC-${n}` : `ISC-${++n}`));
      else if (k === 4) out.push(`### ${words(r, 1)}`);
      else if (k === 5) out.push('```', criterionLine(r, 'ISC-1'), '## LOG', '```');
      else if (k === 6) out.push('<!--', criterionLine(r, 'ISC-2'), '-->');
      else if (k === 7) out.push('');
      else out.push(words(r, r.int(6)) + r.pick(['', ' ', '  ']));
    }
    out.push('');
  }
  const eol = r.pick(['\n', '\r\n', '\n', '\r\n', '\r']);
  let text = out.join(eol);
  if (r.chance(0.3)) text = text.replace(/(\r\n|\n|\r)+$/, '');
  if (r.chance(0.2)) text = `\uFEFF${text}`;
  return text;
}

function randomEdit(r: Rng, text: string): { edit: PrdEdit; expect: 'line' | 'insert' | 'remove' | 'any'; line?: number } | undefined {
  const doc = parsePrd(text);
  const unique = doc.criteria.filter((c) => doc.criteria.filter((o) => o.id === c.id).length === 1);
  const c = unique.length > 0 ? r.pick(unique) : undefined;
  const k = r.int(9);
  if (c && k === 0) return { edit: { kind: 'setChecked', id: c.id, checked: !c.checked }, expect: 'line', line: c.line };
  if (c && k === 1) return { edit: { kind: 'setText', id: c.id, text: words(r, 1 + r.int(8)) }, expect: 'line', line: c.line };
  if (c && k === 2) return { edit: { kind: 'setVerify', id: c.id, verify: r.pick([undefined, { type: 'CLI', command: 'npm run x' }, { type: 'GREP', pattern: 'p', expect: 'present' }]) }, expect: 'line', line: c.line };
  if (c && k === 3) return { edit: { kind: 'setPriority', id: c.id, priority: r.pick(['NICE', 'IMPORTANT', undefined] as const) }, expect: 'line', line: c.line };
  if (c && k === 4) return { edit: { kind: 'setSource', id: c.id, source: r.pick(['INFERRED', 'IMPLICIT', undefined] as const) }, expect: 'line', line: c.line };
  if (c && k === 5) return { edit: { kind: 'removeCriterion', id: c.id }, expect: 'remove', line: c.line };
  if (k === 6) return { edit: { kind: 'addCriterion', anti: r.chance(0.3), ...(r.chance(0.5) ? { domain: words(r, 1) } : {}), criterion: { text: words(r, 3) } }, expect: 'insert' };
  if (k === 7) return { edit: { kind: 'appendLog', entry: { iteration: 1, date: '2026-01-01', phase: 'VERIFY', criteria: '1/2', work: words(r, 3), failing: [] } }, expect: 'insert' };
  if (k === 8 && doc.frontmatter?.ok) return { edit: { kind: 'setFrontmatter', key: r.pick(['status', 'iteration', 'run_id']), value: r.pick(['DONE', 3, 'run-xyz123']) }, expect: 'any' };
  return undefined;
}

describe('prd property: random documents and random edits', () => {
  it('round-trips 400 generated documents and keeps every edit to its own lines', () => {
    let edits = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const r = rng(seed);
      const text = generate(r);
      const doc = parsePrd(text);
      assert.equal(joinLines(doc.source), text, `seed ${seed}: round trip`);
      assert.deepEqual(parsePrd(joinLines(doc.source)).criteria.map(criterionData), doc.criteria.map(criterionData), `seed ${seed}: stable`);
      let current = text;
      for (let step = 0; step < 4; step++) {
        const e = randomEdit(r, current);
        if (!e) continue;
        const after = applyEdits(parsePrd(current), [e.edit]);
        const region = changedRegion(current, after);
        const what = `seed ${seed} step ${step}: ${JSON.stringify(e.edit)}`;
        if (e.expect === 'line') {
          assert.ok(region.removed.length <= 1 && region.added.length === region.removed.length, what);
          if (region.removed.length === 1) assert.equal(region.at, e.line, what);
        } else if (e.expect === 'remove') {
          assert.deepEqual([region.removed.length, region.added.length], [1, 0], what);
        } else if (e.expect === 'insert') {
          assert.equal(region.removed.length, 0, what);
          assert.ok(region.added.length >= 1, what);
        } else {
          assert.ok(region.removed.length <= 1, what);
        }
        const reread = parsePrd(after);
        assert.equal(joinLines(reread.source), after, what);
        if (e.edit.kind === 'setChecked') assert.equal(reread.criteria.find((c) => c.id === (e.edit as { id: string }).id)!.checked, e.edit.checked, what);
        if (e.edit.kind === 'setVerify') assert.deepEqual(reread.criteria.find((c) => c.id === (e.edit as { id: string }).id)!.verify, e.edit.verify, what);
        if (e.edit.kind === 'removeCriterion') assert.ok(!reread.criteria.some((c) => c.id === (e.edit as { id: string }).id), what);
        if (e.edit.kind === 'addCriterion') assert.equal(reread.criteria.length, parsePrd(current).criteria.length + 1, what);
        if (current.startsWith('\uFEFF')) assert.ok(after.startsWith('\uFEFF'), what);
        current = after;
        edits++;
      }
    }
    assert.ok(edits > 800, `${edits} edits made`);
  });
});
