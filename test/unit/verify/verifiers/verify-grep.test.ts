import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { availableParallelism } from 'node:os';
import * as path from 'node:path';
import { SearchScope } from '../../../../src/verify/search-scope';
import { searchWithJs } from '../../../../src/verify/search-js';
import { endIdleSearchWorkers } from '../../../../src/verify/search-worker';
import { ripgrepArgs, searchWithRipgrep, type RipgrepOutcome } from '../../../../src/verify/search-ripgrep';
import type { SearchOutcome } from '../../../../src/verify/search-types';
import type { VerifyHost } from '../../../../src/verify/types';
import { searchThreads, verifyGrep } from '../../../../src/verify/verifiers/grep';
import { anti, context, criterion, testRipgrep, workspace } from '../../support/verify-helpers';

/** A tree that exercises every selection rule: nested .gitignore with negation, ignored folders, hidden files, binary files, symlinks. */
function ruleTree(): string {
  const root = workspace({
    '.gitignore': '# build output\nbuild/\n*.log\n!keep.log\n/top-only.txt\nsecret-*\n',
    'src/app.ts': 'const needle = 1;\nno match here\n  needle again\n',
    'src/util/helper.ts': 'export const x = "needle";\n',
    'src/util/.gitignore': 'generated.ts\n!secret-ok.txt\n',
    'src/util/generated.ts': 'needle in generated\n',
    'src/util/secret-ok.txt': 'needle re-included by the nested file\n',
    'src/secret-no.txt': 'needle ignored by the root file\n',
    'build/out.js': 'needle in build\n',
    'src/build/deep.js': 'needle in a nested build folder\n',
    'app.log': 'needle in a log\n',
    'keep.log': 'needle in a kept log\n',
    'top-only.txt': 'needle anchored ignore\n',
    'docs/top-only.txt': 'needle not anchored here\n',
    '.hidden/notes.md': 'needle in a hidden folder\n',
    '.env': 'TOKEN=needle\n',
    'bin.dat': Buffer.from('needle\0binary\n'),
    'crlf.txt': 'a\r\nneedle\r\n',
    'empty.txt': '',
    'unicode.md': 'héllo needle ✓\n',
    '.git/config': 'needle in git internals\n',
    'node_modules/pkg/index.js': 'needle in a dependency\n',
    'excluded/thing.txt': 'needle excluded by the editor\n',
    'PRD.md': 'the criterion text says needle\n',
  });
  fs.symlinkSync(path.join(root, 'src'), path.join(root, 'src-link'));
  return root;
}

const scopeOf = (root: string, glob?: string) => SearchScope.create(root, glob, ['**/node_modules', 'excluded/'], ['PRD.md']);
const request = (root: string, pattern: string, glob?: string) => ({ scope: scopeOf(root, glob), pattern, signal: new AbortController().signal, timeoutMs: 20_000, maxLocations: 100 });
const matches = (o: SearchOutcome | RipgrepOutcome) => (o.kind === 'done' ? { count: o.matchCount, files: o.files, locations: o.locations.map((l) => `${l.file}:${l.line}`) } : o);

const EXPECTED_NEEDLE = [
  '.env:1',
  '.hidden/notes.md:1',
  'bin.dat:1',
  'crlf.txt:2',
  'docs/top-only.txt:1',
  'keep.log:1',
  'src/app.ts:1',
  'src/app.ts:3',
  'src/util/helper.ts:1',
  'src/util/secret-ok.txt:1',
  'unicode.md:1',
];

describe('verify: GREP', () => {
  it('shares the cores out when other criteria are verified beside it (ripgrep --threads), else leaves ripgrep its own choice', () => {
    assert.deepEqual(searchThreads(undefined, 2), {});
    assert.deepEqual(searchThreads(1, 8), {});
    assert.deepEqual(searchThreads(4, 2), { threads: 1 });
    assert.deepEqual(searchThreads(4, 8), { threads: 2 });
    assert.deepEqual(searchThreads(3, 16), { threads: 5 });
    const scope = SearchScope.create('/w', undefined, [], []);
    const request = { scope, pattern: 'x', signal: new AbortController().signal, timeoutMs: 1000 };
    assert.ok(!ripgrepArgs(request).includes('--threads'));
    const args = ripgrepArgs({ ...request, threads: 1 });
    assert.equal(args[args.indexOf('--threads') + 1], '1');
    assert.ok(args.indexOf('--threads') < args.indexOf('-e'), 'an option, before the pattern');
  });

  const rg = testRipgrep();

  it('the JS search takes its share of the cores, and the next search of the process reuses the workers', async () => {
    const root = ruleTree();
    // Counted where search-worker.ts constructs them: the module's own `Worker`, looked up at each use.
    const threads = require('node:worker_threads') as { Worker: new (...args: unknown[]) => unknown };
    const Real = threads.Worker;
    let started = 0;
    threads.Worker = class extends (Real as new (...args: unknown[]) => object) {
      constructor(...args: unknown[]) {
        super(...args);
        started++;
      }
    } as typeof threads.Worker;
    try {
      endIdleSearchWorkers();
      const alone = matches(await searchWithJs(request(root, 'needle')));
      assert.equal(started, Math.max(1, Math.min(availableParallelism(), 4)), 'alone: one per core, at most four');
      endIdleSearchWorkers();
      started = 0;
      assert.deepEqual(matches(await searchWithJs({ ...request(root, 'needle'), threads: 1 })), alone, 'the same matches');
      assert.equal(started, 1, 'four searches and commands at once on two cores: one worker each, not one per core');
      // The next searches, another pattern among them, take the worker the last one gave back.
      started = 0;
      assert.deepEqual(matches(await searchWithJs({ ...request(root, 'needle'), threads: 1 })), alone);
      const other = matches(await searchWithJs({ ...request(root, 'again|anchored'), threads: 1 }));
      assert.equal(started, 0, 'no new worker for the next searches');
      assert.deepEqual(other, { count: 2, files: ['docs/top-only.txt', 'src/app.ts'], locations: ['docs/top-only.txt:1', 'src/app.ts:3'] }, 'a reused worker matches the new pattern, not the last one');
      // A search stopped mid-way gives no worker back: its match may still be running.
      endIdleSearchWorkers();
      started = 0;
      const stop = new AbortController();
      stop.abort();
      await searchWithJs({ ...request(root, 'needle'), threads: 1, signal: stop.signal });
      const timedOut = await searchWithJs({ ...request(root, 'needle'), threads: 1, timeoutMs: 0 });
      assert.equal(timedOut.kind, 'timeout');
      started = 0;
      await searchWithJs({ ...request(root, 'needle'), threads: 1 });
      assert.equal(started, 1, 'the timed-out search\'s worker was ended, not kept');
    } finally {
      threads.Worker = Real;
      endIdleSearchWorkers();
    }
  });

  it('the JS search honours .gitignore (root and nested), excludes, hidden, binary and symlinks', async () => {
    const root = ruleTree();
    const found = matches(await searchWithJs(request(root, 'needle')));
    assert.deepEqual(found, { count: 11, files: ['.env', '.hidden/notes.md', 'bin.dat', 'crlf.txt', 'docs/top-only.txt', 'keep.log', 'src/app.ts', 'src/util/helper.ts', 'src/util/secret-ok.txt', 'unicode.md'], locations: EXPECTED_NEEDLE });
  });

  it('ripgrep finds exactly what the JS search finds on the same tree', async function () {
    assert.ok(rg, 'no ripgrep: put rg on PATH or run node test/harness/setup.mjs (VS Code ships one)');
    const root = ruleTree();
    const cases: [string, string | undefined][] = [
      ['needle', undefined],
      ['needle', '*.ts'],
      ['needle', 'src/**'],
      ['needle', 'src/'],
      ['needle', '**/*.log'],
      ['needle', '*.{ts,md}'],
      ['needle', 'src/{util,build}/**'],
      ['^needle$', undefined],
      ['needle\\r$', undefined],
      ['^$', undefined],
      ['h.llo', undefined],
      ['(?<=const )needle', undefined],
      ['NEEDLE', undefined],
    ];
    for (const [pattern, glob] of cases) {
      const js = matches(await searchWithJs(request(root, pattern, glob)));
      const viaRg = await searchWithRipgrep(rg!, request(root, pattern, glob));
      assert.equal(viaRg.kind, 'done', `${pattern} ${glob}: ${JSON.stringify(viaRg)}`);
      assert.deepEqual(matches(viaRg), js, `pattern ${pattern} glob ${glob}`);
    }
    const all = matches(await searchWithRipgrep(rg!, request(root, 'needle')));
    assert.deepEqual((all as { locations: string[] }).locations, EXPECTED_NEEDLE);
  });

  it('a glob narrows the search but never brings back ignored files', async () => {
    const root = ruleTree();
    const js = matches(await searchWithJs(request(root, 'needle', 'src/**')));
    assert.deepEqual((js as { locations: string[] }).locations, ['src/app.ts:1', 'src/app.ts:3', 'src/util/helper.ts:1', 'src/util/secret-ok.txt:1']);
    const logs = matches(await searchWithJs(request(root, 'needle', '*.log')));
    assert.deepEqual((logs as { locations: string[] }).locations, ['keep.log:1']);
  });

  const hostFor = (root: string): VerifyHost => ({ workspaceRoot: root, excludeGlobs: ['**/node_modules'], ...(rg ? { ripgrepPath: rg } : {}) });

  it('PASSes with the match count and first file:line locations, FAILs with a repair target when absent', async () => {
    const root = ruleTree();
    const c = criterion({ type: 'GREP', pattern: 'needle', glob: 'src/**', expect: 'present' });
    const v = await verifyGrep({ type: 'GREP', pattern: 'needle', glob: 'src/**', expect: 'present' }, context(hostFor(root), c));
    assert.equal(v.outcome, 'PASS');
    assert.match(v.evidence, /^4 matching lines in 3 files of files matching src\/\*\* for \/needle\//);
    assert.match(v.evidence, /first: src\/app\.ts:1, src\/app\.ts:3, src\/util\/helper\.ts:1, src\/util\/secret-ok\.txt:1/);
    assert.deepEqual(v.coverage, { paths: ['src/app.ts', 'src/util/helper.ts', 'src/util/secret-ok.txt'] });
    const none = await verifyGrep({ type: 'GREP', pattern: 'haystack', expect: 'present' }, context(hostFor(root), c));
    assert.equal(none.outcome, 'FAIL');
    assert.equal(none.failureLabel, 'REQUIREMENT_COVERAGE');
    assert.equal(none.repairTarget, 'A line in workspace files matches /haystack/');
  });

  it('expect absent: PASS when nothing matches, FAIL with the locations when something does', async () => {
    const root = ruleTree();
    const c = criterion({ type: 'GREP', pattern: 'x', expect: 'absent' });
    assert.equal((await verifyGrep({ type: 'GREP', pattern: 'haystack', expect: 'absent' }, context(hostFor(root), c))).outcome, 'PASS');
    const found = await verifyGrep({ type: 'GREP', pattern: 'needle again', expect: 'absent' }, context(hostFor(root), c));
    assert.equal(found.outcome, 'FAIL');
    assert.deepEqual(found.locations, [{ file: 'src/app.ts', line: 3 }]);
  });

  it('an anti-criterion holds when the bad thing is absent, whatever expect says', async () => {
    const clean = workspace({ 'logs/app.log.txt': 'started\nrequest ok\n' });
    const leaky = workspace({ 'logs/app.log.txt': 'started\nkey=sk-abcdefghijklmnopqrstuvwxyz0123\n' });
    const method = { type: 'GREP' as const, pattern: 'sk-[A-Za-z0-9]{20,}', expect: 'present' as const };
    const a = anti(method);
    const pass = await verifyGrep(method, context(hostFor(clean), a));
    assert.equal(pass.outcome, 'PASS');
    assert.deepEqual(pass.coverage, { globs: ['**'] });
    const fail = await verifyGrep(method, context(hostFor(leaky), a));
    assert.equal(fail.outcome, 'FAIL');
    assert.equal(fail.failureLabel, 'CONSTRAINT_VIOLATION');
    assert.deepEqual(fail.locations, [{ file: 'logs/app.log.txt', line: 2 }]);
    assert.doesNotMatch(fail.evidence, /sk-abc/, 'evidence names where, never the secret itself');
    const absentToo = await verifyGrep({ ...method, expect: 'absent' }, context(hostFor(leaky), a));
    assert.equal(absentToo.outcome, 'FAIL');
  });

  it('never counts the PRD being verified as evidence', async () => {
    const root = workspace({ 'PRD.md': 'Verify: Grep: dark-mode-toggle\n', 'src/a.ts': 'nothing\n' });
    const method = { type: 'GREP' as const, pattern: 'dark-mode-toggle', expect: 'present' as const };
    const c = criterion(method);
    assert.equal((await verifyGrep(method, context(hostFor(root), c))).outcome, 'PASS', 'without the exclusion the PRD matches itself');
    const v = await verifyGrep(method, context(hostFor(root), c, { excludeFiles: ['PRD.md'] }));
    assert.equal(v.outcome, 'FAIL');
  });

  it("leaves Ideal State's own folder out unless the glob names it", async () => {
    const root = workspace({ '.ideal-state/prds/other.md': 'Verify: Grep: dark-mode-toggle\n', '.ideal-state/demo/run.yaml': 'dark-mode-toggle\n', 'src/a.ts': 'nothing\n' });
    const method = { type: 'GREP' as const, pattern: 'dark-mode-toggle', expect: 'present' as const };
    assert.equal((await verifyGrep(method, context(hostFor(root), criterion(method)))).outcome, 'FAIL', 'sibling PRDs and demo files are not evidence');
    const inside = { ...method, glob: '.ideal-state/demo/**' };
    const v = await verifyGrep(inside, context(hostFor(root), criterion(inside)));
    assert.equal(v.outcome, 'PASS');
    assert.deepEqual(v.locations, [{ file: '.ideal-state/demo/run.yaml', line: 1 }]);
  });

  it('leaves out a PRD whose name has glob characters, and only that file', async () => {
    const root = workspace({ 'docs/{draft} [1]*.md': 'needle\n', 'docs/draft 1.md': 'needle\n' });
    const v = await searchWithJs({ ...request(root, 'needle'), scope: SearchScope.create(root, undefined, [], ['docs/{draft} [1]*.md']) });
    assert.deepEqual(matches(v), { count: 1, files: ['docs/draft 1.md'], locations: ['docs/draft 1.md:1'] });
    if (rg) assert.deepEqual(matches(await searchWithRipgrep(rg, { ...request(root, 'needle'), scope: SearchScope.create(root, undefined, [], ['docs/{draft} [1]*.md']) })), matches(v));
  });

  it('an invalid regex is UNKNOWN with the reason, not an exception', async () => {
    const root = workspace({ 'a.txt': 'x' });
    const c = criterion({ type: 'GREP', pattern: '(unclosed', expect: 'present' });
    const v = await verifyGrep({ type: 'GREP', pattern: '(unclosed', expect: 'present' }, context(hostFor(root), c));
    assert.equal(v.outcome, 'UNKNOWN');
    assert.equal(v.failureLabel, 'AMBIGUITY');
    assert.match(v.evidence, /^\/\(unclosed\/ is not a valid regular expression: .*Unterminated group/);
  });

  it('a glob that leaves the workspace is UNKNOWN (SCOPE_ERROR)', async () => {
    const root = workspace({ 'a.txt': 'x' });
    for (const glob of ['../**', '/etc/*']) {
      const method = { type: 'GREP' as const, pattern: 'x', glob, expect: 'present' as const };
      const v = await verifyGrep(method, context(hostFor(root), criterion(method)));
      assert.equal(v.outcome, 'UNKNOWN', glob);
      assert.equal(v.failureLabel, 'SCOPE_ERROR');
    }
  });

  it('does not search through a symlink to a folder outside the workspace', async () => {
    const outside = workspace({ 'secret.txt': 'needle outside\n' });
    const root = workspace({ 'a.txt': 'nothing\n' });
    fs.symlinkSync(outside, path.join(root, 'escape'));
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'escape.txt'));
    const method = { type: 'GREP' as const, pattern: 'needle', expect: 'present' as const };
    assert.equal((await verifyGrep(method, context(hostFor(root), criterion(method)))).outcome, 'FAIL');
    assert.equal((await verifyGrep(method, context({ workspaceRoot: root }, criterion(method)))).outcome, 'FAIL', 'JS search too');
  });

  it('a ripgrep that fails (exit 2 with an error that names no file) is UNKNOWN, never "0 matching lines"', async () => {
    // Seen with an rg built for another processor on the PATH: sh runs it, prints "Syntax error"
    // and exits 2, rg's own "an error happened" code, which per-file errors also give.
    const root = ruleTree();
    const fake = path.join(root, 'bad-rg');
    fs.writeFileSync(fake, "#!/bin/sh\necho 'bad-rg: 4: Syntax error: unexpected' >&2\nexit 2\n", { mode: 0o755 });
    const outcome = await searchWithRipgrep(fake, request(root, 'needle'));
    assert.equal(outcome.kind, 'error', JSON.stringify(outcome));
    assert.match(outcome.kind === 'error' ? outcome.reason : '', /ripgrep \(.*bad-rg\) failed: bad-rg: 4: Syntax error/);
    const method = { type: 'GREP' as const, pattern: 'needle', expect: 'present' as const };
    const v = await verifyGrep(method, context({ workspaceRoot: root, excludeGlobs: [], ripgrepPath: fake }, criterion(method)));
    assert.equal(v.outcome, 'UNKNOWN', v.evidence);
    // Per-file errors alone still leave the search true: the file is named as unreadable.
    fs.writeFileSync(fake, `#!/bin/sh\necho "rg: ./src/app.ts: Permission denied (os error 13)" >&2\nexit 2\n`, { mode: 0o755 });
    const perFile = await searchWithRipgrep(fake, request(root, 'needle'));
    assert.equal(perFile.kind, 'done', JSON.stringify(perFile));
  });

  it('one NUL byte written into a source file does not hide a match from an anti-criterion (ripgrep, the JS search, a file streamed in chunks)', async function () {
    this.timeout(60_000);
    const big = Buffer.concat([Buffer.from('\0'), Buffer.from('let filler = 1;\n'.repeat(600_000)), Buffer.from('  debugger;\n')]);
    const root = workspace({ 'src/greet.js': Buffer.from('export const greet = (n) => n;\n\0\n  debugger;\n'), 'src/big.js': big });
    const method = { type: 'GREP' as const, pattern: '^\\s*debugger\\b', expect: 'absent' as const };
    const engines: [string, VerifyHost][] = [['JS search', { workspaceRoot: root, ripgrepPath: path.join(root, 'no-rg') }]];
    if (rg) engines.push(['ripgrep', { workspaceRoot: root, ripgrepPath: rg }]);
    const previous = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      for (const [engine, host] of engines) {
        const v = await verifyGrep(method, context(host, anti(method)));
        assert.equal(v.outcome, 'FAIL', `${engine}: ${v.evidence}`);
        assert.deepEqual(v.locations?.map((l) => `${l.file}:${l.line}`), ['src/big.js:600001', 'src/greet.js:3'], engine);
      }
    } finally {
      process.env.PATH = previous;
    }
    assert.ok(rg, 'no ripgrep: put rg on PATH or run node test/harness/setup.mjs (VS Code ships one)');
  });

  it('falls back to the JS search when there is no ripgrep, with the same answer', async () => {
    const root = ruleTree();
    const method = { type: 'GREP' as const, pattern: 'needle', expect: 'present' as const };
    const host: VerifyHost = { workspaceRoot: root, excludeGlobs: ['**/node_modules', 'excluded/'], ripgrepPath: path.join(root, 'no-rg') };
    const previous = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      const v = await verifyGrep(method, context(host, criterion(method), { excludeFiles: ['PRD.md'] }));
      assert.match(v.evidence, /\(JS search\)/);
      assert.match(v.evidence, /^11 matching lines in 10 files/);
      // The evidence keeps the first ten locations.
      assert.deepEqual(v.locations?.map((l) => `${l.file}:${l.line}`), EXPECTED_NEEDLE.slice(0, 10));
    } finally {
      process.env.PATH = previous;
    }
  });

  it('stops on cancel and on its timeout', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 3000; i++) files[`d${i % 30}/f${i}.txt`] = `line\n`.repeat(50);
    const root = workspace(files);
    const controller = new AbortController();
    controller.abort();
    assert.deepEqual(await searchWithJs({ ...request(root, 'x'), signal: controller.signal }), { kind: 'cancelled' });
    assert.deepEqual(await searchWithJs({ ...request(root, 'x'), timeoutMs: 1 }), { kind: 'timeout', timeoutMs: 1 });
    if (rg) assert.deepEqual(await searchWithRipgrep(rg, { ...request(root, 'x'), signal: controller.signal }), { kind: 'cancelled' });
  });
});
