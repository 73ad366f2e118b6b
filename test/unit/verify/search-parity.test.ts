import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { requiredLiteral } from '../../../src/verify/search-pool';
import { SearchScope } from '../../../src/verify/search-scope';
import { searchWithJs } from '../../../src/verify/search-js';
import { searchWithRipgrep, type RipgrepOutcome } from '../../../src/verify/search-ripgrep';
import type { SearchOutcome } from '../../../src/verify/search-types';
import { testRipgrep, workspace } from '../support/verify-helpers';

/**
 * The built-in search (worker threads, literal prefilter, whole reads up to a cap) against
 * ripgrep on a generated tree of a realistic shape: many folders of source files, nested
 * .gitignore files with negations, ignored build output, binary files, a file with a BOM, CRLF
 * lines, UTF-8 text and a file past the search's whole-read size. Same counts, same files, same
 * first locations, pattern for pattern (issue 26).
 */
function generatedTree(): string {
  const files: Record<string, string | Buffer> = {
    '.gitignore': 'build/\n*.tmp\n!keep.tmp\n',
    'packages/a/.gitignore': 'generated/\n',
    'keep.tmp': 'export const marker = "X-Request-Id";\n',
    'drop.tmp': 'X-Request-Id in an ignored file\n',
    'bom.ts': '\uFEFFX-Request-Id at the start after a BOM\n',
    'crlf.ts': 'first\r\nX-Request-Id: abc\r\nlast\r\n',
    'utf8.md': 'héllo X-Request-Id ✓ naïve\nsetting-7 = ünïcode\n',
    'binary.dat': Buffer.from('X-Request-Id\0\x01\x02'),
  };
  const body = (i: number) => Array.from({ length: 20 }, (_, j) => `export const value${j} = compute(${(i * 7 + j) % 97}, 'setting-${j}');`).join('\n');
  for (let i = 0; i < 1200; i++) {
    const pkg = ['a', 'b', 'c'][i % 3]!;
    const extra = i % 37 === 0 ? `\n// X-Request-Id header set (${i})\nfunction handler${i}(req) { return req.headers['x-request-id']; }` : '';
    files[`packages/${pkg}/src/m${Math.floor(i / 50)}/f${i}.ts`] = `${body(i)}${extra}\n`;
  }
  for (let i = 0; i < 40; i++) files[`packages/a/generated/g${i}.ts`] = 'X-Request-Id in generated code\n';
  for (let i = 0; i < 40; i++) files[`build/out${i}.js`] = 'X-Request-Id in build output\n';
  const root = workspace(files);
  // Past the built-in search's whole-read cap (8 MiB): streamed in chunks.
  const big = fs.openSync(path.join(root, 'packages/b/big.log'), 'w');
  const line = `${'x'.repeat(99)}\n`;
  for (let i = 0; i < 90_000; i++) fs.writeSync(big, i === 88_888 ? 'late X-Request-Id in a large file\n' : line);
  fs.closeSync(big);
  return root;
}

const request = (root: string, pattern: string, glob?: string) => ({ scope: SearchScope.create(root, glob, [], []), pattern, signal: new AbortController().signal, timeoutMs: 120_000, maxLocations: 50 });
const summary = (o: SearchOutcome | RipgrepOutcome) => (o.kind === 'done' ? { count: o.matchCount, fileCount: o.fileCount, files: o.files, locations: o.locations.map((l) => `${l.file}:${l.line}`) } : o);

describe('verify: the built-in search against ripgrep on a generated tree (issue 26)', () => {
  const rg = testRipgrep();
  let root: string;
  before(function () {
    this.timeout(120_000);
    root = generatedTree();
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  const cases: [string, string | undefined][] = [
    ['X-Request-Id', undefined],
    ['X-Request-Id', 'packages/**'],
    ['^X-Request-Id', undefined],
    ['X-Request-Id: abc\\r?$', undefined],
    ["headers\\['x-request-id'\\]", undefined],
    ['handler1\\d+', undefined],
    ['setting-(7|8)', '**/*.md'],
    ['compute\\(9[0-6]', 'packages/c/**'],
    ['h.llo|late', undefined],
    ['ünïcode', undefined],
    ['no such text anywhere', undefined],
  ];
  for (const [pattern, glob] of cases) {
    it(`finds what ripgrep finds: ${pattern}${glob ? ` in ${glob}` : ''}`, async function () {
      if (!rg) this.skip(); // no ripgrep to compare with (node test/harness/setup.mjs brings VS Code's)
      this.timeout(120_000);
      const viaRg = await searchWithRipgrep(rg, request(root, pattern, glob));
      assert.equal(viaRg.kind, 'done', JSON.stringify(viaRg));
      assert.deepEqual(summary(await searchWithJs(request(root, pattern, glob))), summary(viaRg));
    });
  }

  it('finds the matches the tree was made with', async function () {
    this.timeout(120_000);
    const found = await searchWithJs(request(root, 'X-Request-Id'));
    assert.equal(found.kind, 'done');
    // 33 source files (every 37th of 1,200), keep.tmp, bom.ts, crlf.ts, utf8.md, binary.dat (a NUL
    // byte does not hide a match) and the large file's one line.
    assert.equal(found.kind === 'done' && found.matchCount, 33 + 6);
    assert.ok(found.kind === 'done' && found.locations.some((l) => l.file === 'binary.dat' && l.line === 1));
    assert.ok(found.kind === 'done' && found.locations.some((l) => l.file === 'packages/b/big.log' && l.line === 88_889));
  });
});

describe('verify: the literal every match must contain (the search prefilter)', () => {
  it('takes the longest run of plain characters outside groups', () => {
    assert.equal(requiredLiteral('X-Request-Id'), 'X-Request-Id');
    assert.equal(requiredLiteral('export function handler\\d+\\('), 'export function handler');
    assert.equal(requiredLiteral('^import .* from "zod"$'), ' from "zod"');
    assert.equal(requiredLiteral('headers\\[\'x-request-id\'\\]'), "headers['x-request-id']");
    assert.equal(requiredLiteral('(?<=const )needle'), 'needle');
  });

  it('drops a character a quantifier makes optional and keeps one that must occur', () => {
    assert.equal(requiredLiteral('colou?r scheme'), 'r scheme');
    assert.equal(requiredLiteral('abcd*efg'), 'abc');
    assert.equal(requiredLiteral('abcd{0,2}efgh'), 'efgh');
    assert.equal(requiredLiteral('abcd+xy'), 'abcd');
    assert.equal(requiredLiteral('abcd{2}xy'), 'abcd');
  });

  it('gives none where a match need not contain one: alternation, classes only, short runs', () => {
    assert.equal(requiredLiteral('needle|haystack'), undefined);
    assert.equal(requiredLiteral('(needle)?'), undefined);
    assert.equal(requiredLiteral('[a-z]+\\d\\w'), undefined);
    assert.equal(requiredLiteral('ab.cd'), undefined);
    assert.equal(requiredLiteral('x{'), undefined);
  });

  it('finds a group-level alternation harmless: only what is outside the group is required', () => {
    assert.equal(requiredLiteral('setting-(7|8) value'), 'setting-');
    assert.equal(requiredLiteral('x(7|8) value'), ' value');
  });
});
