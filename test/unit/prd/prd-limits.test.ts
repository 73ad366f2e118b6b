import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { prdCheck } from '../../../src/cli/commands/prd-check';
import { verifyCommand } from '../../../src/cli/commands/verify';
import { checkPrd, joinLines, parsePrd, type PrdDiagnostic } from '../../../src/prd';
import { PRD_LIMITS } from '../../../src/prd/limits';
import { sectionKind } from '../../../src/prd/sections';

// Issue 15, "parser blow-ups": every input below used to hang `prd check` (quadratic regexes),
// run it out of memory (exit 134), or crash it with one line and exit 1. Each now ends with a
// located diagnostic. No timings are asserted: that the calls return at all is the point.

const BODY = ['# T', '## Problem Space', 'Why.', '## Ideal State Criteria', '- [ ] ISC-1: The greeting file exists in the root | Verify: Read: hello.txt', ''];
const prd = (frontmatter: string[], body = BODY) => ['---', 'prd: true', ...frontmatter, '---', ...body].join('\n');
const errorsOf = (ds: readonly PrdDiagnostic[]) => ds.filter((d) => d.severity === 'error').map((d) => ({ rule: d.rule, line: d.line, column: d.column }));

let bomb = 'a0: &a0 [x, x, x, x, x, x, x, x, x]';
for (let i = 1; i < 9; i++) bomb += `\na${i}: &a${i} [${Array(9).fill(`*a${i - 1}`).join(', ')}]`;

describe('prd: bounded inputs (issue 15)', () => {
  it('reads a 1 MB heading of "(" as one too-long line, and the rest of the PRD as usual', () => {
    const text = prd([], ['# T', `## ${'('.repeat(1 << 20)}`, ...BODY.slice(1)]);
    const doc = parsePrd(text);
    assert.deepEqual(errorsOf(doc.diagnostics), [{ rule: 'line-too-long', line: 5, column: 1 }]);
    assert.match(doc.diagnostics.find((d) => d.rule === 'line-too-long')!.message, /^this line is 1.1 MB, over the 64 KB a PRD line may have, and is not read; break it up$/);
    assert.deepEqual(doc.criteria.map((c) => c.id), ['ISC-1']);
    assert.equal(joinLines(doc.source), text, 'the file is kept byte for byte');
  });

  it('reads lines just under the limit in linear time: a heading of "(", runs of blanks inside items, headings and criteria', () => {
    const n = PRD_LIMITS.maxLineChars - 100;
    const blanks = ' '.repeat(n - 500);
    const body = [
      '# T',
      `## ${'('.repeat(n)}`,
      `## Problem${':'.repeat(n)}x`,
      '## Key Files',
      `- a${blanks}b`,
      '## Decisions',
      `### 2026-01-01: a${blanks}b`,
      `- **Decision:** a${blanks}b`,
      '## Ideal State Criteria',
      `- [ ] ISC-1: The greeting file exists${blanks}here | Verify: Read: hello.txt`,
      `- [ ] ISC-2: The greeting file greets the world ${'|'.repeat(200)}${blanks}x`,
      '',
    ];
    const doc = parsePrd(prd([], body));
    assert.deepEqual(errorsOf(doc.diagnostics), []);
    assert.equal(doc.sections[0]!.kind, 'unknown');
    assert.deepEqual(doc.keyFiles, [`a${blanks}b`]);
    assert.equal(doc.decisions[0]!.title, `a${blanks}b`);
    assert.equal(doc.decisions[0]!.decision, `a${blanks}b`);
    assert.deepEqual(doc.criteria[0]!.verify, { type: 'READ', path: 'hello.txt' });
    assert.equal(doc.criteria[1]!.verify, undefined);
  });

  it('still names sections as before: a trailing note in parentheses and a colon are not part of the name', () => {
    assert.equal(sectionKind('Ideal State Criteria (Verification Criteria)'), 'criteria');
    assert.equal(sectionKind('ideal state criteria:'), 'criteria');
    assert.equal(sectionKind('Problem Space: (draft) '), 'problem-space');
    assert.equal(sectionKind('Problem (draft) Space'), 'unknown');
    assert.equal(sectionKind('()'), 'unknown');
  });

  it('refuses a file over the size limit with one error at its first line, keeping its lines', () => {
    const text = prd([], [...BODY, 'x'.repeat(1000), ...Array(Math.ceil(PRD_LIMITS.maxChars / 1000)).fill('y'.repeat(999))]);
    const { document, diagnostics } = checkPrd(text);
    assert.deepEqual(errorsOf(diagnostics), [{ rule: 'prd-too-large', line: 1, column: 1 }]);
    assert.equal(diagnostics.length, 1, 'no lint of an unread file');
    assert.deepEqual(document.criteria, []);
    assert.equal(joinLines(document.source), text);
  });

  it('refuses frontmatter over its limit at the opening fence, and reads the body', () => {
    const fields = Array.from({ length: 4000 }, (_, i) => `field${i}: some value number ${i}`);
    const doc = parsePrd(prd(fields));
    assert.deepEqual(errorsOf(doc.diagnostics), [{ rule: 'frontmatter-too-large', line: 1, column: 1 }]);
    assert.equal(doc.frontmatter?.ok, false);
    assert.deepEqual(doc.criteria.map((c) => c.id), ['ISC-1']);
  });

  it('reads an 8 MB frontmatter line of "[" as too large, and a 100 KB one as a too-long line', () => {
    assert.deepEqual(errorsOf(checkPrd(prd([`x: ${'['.repeat(8 << 20)}`])).diagnostics), [{ rule: 'prd-too-large', line: 1, column: 1 }]);
    const doc = parsePrd(prd([`x: ${'['.repeat(100_000)}`]));
    assert.deepEqual(errorsOf(doc.diagnostics), [{ rule: 'line-too-long', line: 3, column: 1 }]);
    assert.equal(doc.frontmatter?.data.prd, true, 'the other fields are read');
  });

  it('stops deep nesting in frontmatter where it passes 64 levels, flow or block', () => {
    const flow = parsePrd(prd([`x: ${'['.repeat(60_000)}`]));
    assert.deepEqual(errorsOf(flow.diagnostics), [{ rule: 'yaml-limit', line: 3, column: 67 }]);
    assert.match(flow.diagnostics[0]!.message, /^frontmatter YAML: the YAML nests more than 64 levels deep here; flatten it/);
    const block = ['x:', ...Array.from({ length: 200 }, (_, i) => `${' '.repeat(i + 1)}k${i}:`)];
    const deep = parsePrd(prd(block));
    assert.deepEqual(errorsOf(deep.diagnostics).map((e) => e.rule), ['yaml-limit']);
    assert.ok(deep.diagnostics[0]!.line > 60 && deep.diagnostics[0]!.line < 70, `at the 64th level, not ${deep.diagnostics[0]!.line}`);
    assert.equal(deep.frontmatter?.ok, false);
  });

  it('stops an alias bomb in frontmatter at its first alias', () => {
    const doc = parsePrd(prd(bomb.split('\n')));
    assert.deepEqual(errorsOf(doc.diagnostics), [{ rule: 'yaml-limit', line: 4, column: 10 }]);
    assert.match(doc.diagnostics[0]!.message, /aliases here expand to too many values \(more than 100\)/);
    assert.deepEqual(doc.frontmatter?.data, {});
  });

  it('still finds duplicate keys, now in linear time: 10,000 keys and one repeated', () => {
    const fields = [...Array.from({ length: 5000 }, (_, i) => `k${i}: ${i}`), 'k17: again'];
    const doc = parsePrd(prd(fields));
    assert.deepEqual(errorsOf(doc.diagnostics), [{ rule: 'yaml-syntax', line: 5003, column: 1 }]);
    assert.match(doc.diagnostics[0]!.message, /Map keys must be unique/);
  });

  it('lists at most 100 problems of a rule and counts the rest, as an error when they are errors', () => {
    const body = ['# T', '## Problem Space', 'x', '## Ideal State Criteria', ...Array(5000).fill('- [ ] ISC-1: The greeting file exists in the root | Verify: Read: a'), ''];
    const { diagnostics } = checkPrd(prd([], body));
    const dups = diagnostics.filter((d) => d.rule === 'duplicate-id');
    assert.equal(dups.length, 101);
    const count = dups[100]!;
    assert.equal(count.severity, 'error');
    assert.equal(count.message, '4899 more like this (duplicate-id) from here on are not listed; fix the ones above and check again');
    assert.ok(dups.slice(0, 100).every((d) => d.fix === undefined || d.fix.edits.length === 1));
  });
});

describe('command line: limits are bad input, exit 2 with located JSON (issue 15)', () => {
  const dir = () => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-prd-limits-')));
  const capture = () => {
    const out: string[] = [];
    const err: string[] = [];
    return { out, err, io: { out: (s: string) => out.push(s), err: (s: string) => err.push(s) } };
  };

  it('prd check --json: an alias bomb, a 1 MB heading and an 8 MB file each give their diagnostic and exit 2', async () => {
    const root = dir();
    const cases: [string, string, { rule: string; line: number; column: number }][] = [
      ['bomb.md', prd(bomb.split('\n')), { rule: 'yaml-limit', line: 4, column: 10 }],
      ['heading.md', prd([], ['# T', `## ${'('.repeat(1 << 20)}`, ...BODY.slice(1)]), { rule: 'line-too-long', line: 5, column: 1 }],
      ['huge.md', prd([`x: ${'['.repeat(8 << 20)}`]), { rule: 'prd-too-large', line: 1, column: 1 }],
    ];
    for (const [name, text, expected] of cases) {
      const file = path.join(root, name);
      fs.writeFileSync(file, text);
      const c = capture();
      assert.equal(await prdCheck(file, true, c.io), 2, name);
      const json = JSON.parse(c.out.join(''));
      assert.deepEqual(json.diagnostics.filter((d: { severity: string }) => d.severity === 'error').map(({ rule, line, column }: { rule: string; line: number; column: number }) => ({ rule, line, column })), [expected], name);
    }
  });

  it('prd check still exits 1 for ordinary errors', async () => {
    const root = dir();
    const file = path.join(root, 'dup.md');
    fs.writeFileSync(file, prd([], [...BODY.slice(0, 5), BODY[4]!, '']));
    const c = capture();
    assert.equal(await prdCheck(file, false, c.io), 1);
    assert.match(c.out.join('\n'), /dup\.md:9:7: error: ISC-1 is used by an earlier criterion/);
  });

  it('verify --json: a PRD past a limit is bad input (2) with the diagnostics as JSON, never "a criterion did not pass" (1)', async () => {
    const root = dir();
    for (const [name, text, rule] of [
      ['bomb.md', prd(bomb.split('\n')), 'yaml-limit'],
      ['deep.md', prd([`x: ${'['.repeat(60_000)}`]), 'yaml-limit'],
      ['huge.md', prd([`x: ${'['.repeat(8 << 20)}`]), 'prd-too-large'],
    ] as const) {
      const file = path.join(root, name);
      fs.writeFileSync(file, text);
      const c = capture();
      assert.equal(await verifyCommand([file, '--workspace', root, '--no-store', '--json'], c.io), 2, name);
      const json = JSON.parse(c.out.join(''));
      assert.equal(json.passed, false);
      assert.equal(json.error.code, 'bad-input');
      assert.deepEqual(json.diagnostics.map((d: { rule: string; file: string }) => [d.rule, d.file]), [[rule, file]], name);
      assert.match(c.err.join('\n'), new RegExp(`${name}:\\d+:\\d+: error: `));
    }
  });
});
