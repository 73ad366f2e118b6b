import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { verifyPrdFile } from '../../../src/app/verify-prd-file';
import type { VerificationMethod } from '../../../src/model';
import { ignoreChanges } from '../../../src/verify/search-approved';
import { searchWithJs } from '../../../src/verify/search-js';
import { ripgrepArgs, searchWithRipgrep, type RipgrepOutcome } from '../../../src/verify/search-ripgrep';
import { NEVER_SOURCE_FOLDERS, neverSourceExcludes, type ApprovedIgnores } from '../../../src/verify/search-rules';
import { SearchScope } from '../../../src/verify/search-scope';
import type { SearchOutcome } from '../../../src/verify/search-types';
import type { VerifyHost } from '../../../src/verify/types';
import { verifyGrep } from '../../../src/verify/verifiers/grep';
import { anti, context, criterion, testRipgrep, workspace } from '../support/verify-helpers';

const rg = testRipgrep();
const host = (root: string, approvedIgnores?: ApprovedIgnores): VerifyHost => ({ workspaceRoot: root, ...(rg ? { ripgrepPath: rg } : {}), ...(approvedIgnores ? { approvedIgnores } : {}) });
const grep = (pattern: string, more: Partial<Extract<VerificationMethod, { type: 'GREP' }>> = {}): Extract<VerificationMethod, { type: 'GREP' }> => ({ type: 'GREP', pattern, expect: 'present', ...more });
const locked = (files: Record<string, string | null>): ApprovedIgnores => ({ files: new Map(Object.entries(files)), source: 'locked 2026-11-28 by a person' });
const files = (o: SearchOutcome | RipgrepOutcome) => (o.kind === 'done' ? o.files : o);

/** A project as a person left it: source, ignored build output, an installed dependency. */
function project(extra: Record<string, string> = {}): string {
  return workspace({
    '.gitignore': 'dist/\nnode_modules\n',
    'src/app.js': 'console.log("hello");\n',
    'src/lib/util.js': 'module.exports = 1;\n',
    'dist/out.js': 'console.log("built");\n',
    'node_modules/foo/index.js': 'console.log("dependency");\n',
    ...extra,
  });
}

const APPROVED = { '.gitignore': 'dist/\nnode_modules\n' };

describe('verify: what a Grep searches — the source, under the ignore rules a person approved', () => {
  it('an agent that adds src/ to .gitignore does not hide a match: the approved text applies, and the evidence says so', async () => {
    const root = project();
    fs.writeFileSync(path.join(root, '.gitignore'), 'dist/\nnode_modules\nsrc/\n');
    const method = grep('console\\.log');
    const hidden = await verifyGrep(method, context(host(root), anti(method)));
    assert.equal(hidden.outcome, 'PASS', 'without approved rules the edited file hides src/ (the threat this answers)');
    const v = await verifyGrep(method, context(host(root, locked(APPROVED)), anti(method)));
    assert.equal(v.outcome, 'FAIL', v.evidence);
    assert.match(v.evidence, /first: src\/app\.js:1$/m);
    assert.match(v.evidence, /searched under the \.gitignore files as locked 2026-11-28 by a person; \.gitignore was changed since and does not change what is searched/);
    if (rg) assert.match(v.evidence, /\(JS search\)[\s\S]*which differ from the approved ones: searched with the JS engine/, 'ripgrep would read the file on disk');
  });

  it('an agent that removes dist/ from .gitignore does not add its matches', async () => {
    const root = project({ 'src/app.js': 'clean\n' });
    fs.writeFileSync(path.join(root, '.gitignore'), 'node_modules\n');
    const method = grep('console\\.log');
    const unlocked = await verifyGrep(method, context(host(root), anti(method)));
    assert.equal(unlocked.outcome, 'FAIL', 'as the files are, dist/ is searched');
    const v = await verifyGrep(method, context(host(root, locked(APPROVED)), anti(method)));
    assert.equal(v.outcome, 'PASS', v.evidence);
    assert.match(v.evidence, /^0 matching lines in 0 files of workspace files for \/console\\\.log\//);
  });

  it('a .gitignore the agent added has no rules; one it removed still applies its approved text', async () => {
    const root = project({ 'packages/a/gen/x.js': 'console.log(1);\n', 'src/app.js': 'clean\n' });
    fs.writeFileSync(path.join(root, 'src/.gitignore'), '*.js\n');
    fs.writeFileSync(path.join(root, 'src/lib/util.js'), 'console.log(2);\n');
    const approved = locked({ ...APPROVED, 'packages/a/.gitignore': 'gen/\n', 'src/.gitignore': null });
    const v = await verifyGrep(grep('console\\.log'), context(host(root, approved), criterion(grep('console\\.log'))));
    assert.equal(v.outcome, 'PASS', v.evidence);
    assert.match(v.evidence, /^1 matching line in 1 file of workspace files/);
    assert.match(v.evidence, /first: src\/lib\/util\.js:1$/m, 'the added src/.gitignore hides nothing; the removed packages/a/.gitignore still leaves gen/ out');
    assert.match(v.evidence, /packages\/a\/\.gitignore was removed, src\/\.gitignore was added since and do not change what is searched/);
  });

  it('both engines search under the approved texts, and ripgrep is kept when nothing on disk differs', async () => {
    assert.ok(rg, 'no ripgrep: put rg on PATH or run node test/harness/setup.mjs (VS Code ships one)');
    const root = project({ 'packages/a/.gitignore': 'gen/\n', 'packages/a/gen/x.js': 'console.log(1);\n' });
    const approved = () => locked({ ...APPROVED, 'packages/a/.gitignore': 'gen/\n' });
    const scope = () => SearchScope.create(root, undefined, neverSourceExcludes(undefined), [], { approvedIgnores: approved() });
    const request = () => ({ scope: scope(), pattern: 'console', signal: new AbortController().signal, timeoutMs: 20_000 });
    assert.deepEqual(await ignoreChanges(scope()), []);
    assert.deepEqual(files(await searchWithRipgrep(rg!, request())), ['src/app.js']);
    assert.deepEqual(files(await searchWithJs(request())), ['src/app.js']);
    const v = await verifyGrep(grep('console'), context(host(root, approved()), criterion(grep('console'))));
    assert.match(v.evidence, /\(ripgrep\)\n/, v.evidence);
    assert.doesNotMatch(v.evidence, /since and/);
    // The JS search reads no .gitignore from disk under approved texts: a changed file changes nothing.
    fs.writeFileSync(path.join(root, 'packages/a/.gitignore'), '');
    fs.writeFileSync(path.join(root, '.gitignore'), 'src/\n');
    assert.deepEqual(files(await searchWithJs(request())), ['src/app.js']);
    assert.deepEqual(await ignoreChanges(scope()), [{ file: '.gitignore', change: 'changed' }, { file: 'packages/a/.gitignore', change: 'changed' }]);
  });

  it("shares one look for changed .gitignore files among a verification's Greps, and looks again for a later one", async () => {
    const root = project();
    const approved = locked(APPROVED);
    const scope = () => SearchScope.create(root, undefined, neverSourceExcludes(undefined), [], { approvedIgnores: approved });
    assert.deepEqual(await ignoreChanges(scope()), []);
    fs.writeFileSync(path.join(root, '.gitignore'), 'src/\n');
    assert.deepEqual(await ignoreChanges(scope()), [], 'the Greps of one verification share the first look');
    const now = Date.now;
    Date.now = () => now() + 5_000;
    try {
      assert.deepEqual(await ignoreChanges(scope()), [{ file: '.gitignore', change: 'changed' }], 'a verification seconds later looks again');
    } finally {
      Date.now = now;
    }
    const cancelled = new AbortController();
    cancelled.abort();
    const other = SearchScope.create(root, 'src/**', [], [], { approvedIgnores: locked(APPROVED) });
    assert.deepEqual(await ignoreChanges(other, cancelled.signal), [], 'a cancelled Grep stops waiting');
    assert.deepEqual(await ignoreChanges(other), [{ file: '.gitignore', change: 'changed' }], 'and its cancel did not cut the shared look short');
  });

  it('never searches dependency and tool folders at any depth, ignored or not, unless the glob names one', async () => {
    const root = workspace({
      'src/app.js': 'clean\n',
      'node_modules/foo/index.js': 'leftPad(x)\n',
      'packages/web/node_modules/bar/index.js': 'leftPad(x)\n',
      '.venv/lib/site.py': 'leftPad(x)\n',
      'tools/__pycache__/m.py': 'leftPad(x)\n',
      '.vscode-test/vscode/x.js': 'leftPad(x)\n',
    });
    const method = grep('\\bleftPad\\(');
    const v = await verifyGrep(method, context(host(root), anti(method)));
    assert.equal(v.outcome, 'PASS', v.evidence);
    assert.match(v.evidence, /searched under the \.gitignore files as they are in the workspace; node_modules, bower_components and the other dependency and tool folders never searched/);
    const named = grep('\\bleftPad\\(', { glob: 'node_modules/foo/**' });
    const inside = await verifyGrep(named, context(host(root), anti(named)));
    assert.equal(inside.outcome, 'FAIL', inside.evidence);
    assert.match(inside.evidence, /first: node_modules\/foo\/index\.js:1$/m);
    assert.deepEqual(neverSourceExcludes('**/.venv/**').includes('.venv/'), false);
    assert.equal(neverSourceExcludes(undefined).length, NEVER_SOURCE_FOLDERS.length);
  });

  it('searches a committed build/ folder that no .gitignore ignores: build output is out only when ignored', async () => {
    const root = workspace({ 'build/release.mjs': 'leftPad(code)\n', 'src/app.js': 'clean\n' });
    const method = grep('\\bleftPad\\(');
    const v = await verifyGrep(method, context(host(root), anti(method)));
    assert.equal(v.outcome, 'FAIL', v.evidence);
    assert.match(v.evidence, /first: build\/release\.mjs:1$/m);
  });

  it('`| ignored: include` searches ignored files too, but still no dependency folder, with the same answer from both engines', async () => {
    const root = project({ 'src/app.js': 'clean\n' });
    const method = grep('console\\.log', { ignored: 'include' });
    const v = await verifyGrep(method, context(host(root, locked(APPROVED)), anti(method)));
    assert.equal(v.outcome, 'FAIL', v.evidence);
    assert.match(v.evidence, /^1 matching line in 1 file/);
    assert.match(v.evidence, /first: dist\/out\.js:1$/m);
    assert.match(v.evidence, /searched ignored files too \(\| ignored: include\); node_modules, bower_components and the other dependency and tool folders never searched/);
    const scope = SearchScope.create(root, undefined, neverSourceExcludes(undefined), [], { includeIgnored: true });
    const request = { scope, pattern: 'console', signal: new AbortController().signal, timeoutMs: 20_000 };
    assert.ok(ripgrepArgs(request).includes('--no-ignore-vcs'));
    assert.ok(!ripgrepArgs({ ...request, scope: SearchScope.create(root, undefined, [], []) }).includes('--no-ignore-vcs'));
    assert.deepEqual(files(await searchWithJs(request)), ['dist/out.js']);
    if (rg) assert.deepEqual(files(await searchWithRipgrep(rg, request)), ['dist/out.js']);
  });

  it('an anti-criterion over a project with its dependencies and build output installed passes on a clean source and fails naming the source file', async () => {
    const prd = ['---', 'prd: true', 'id: PRD-20261128-scope', 'effort_level: INSTANT', '---', '', '# Scope', '', '## Ideal State Criteria', '- [ ] ISC-1: The app exists | Verify: Read: src/app.js', '', '## Anti-Criteria', '- [ ] ISC-A-1: No console.log call in the source | Verify: Grep: console\\.log', ''].join('\n');
    const run = async (root: string) => {
      const r = await verifyPrdFile({ file: path.join(root, 'PRD.md'), workspace: root, checks: { timeoutSeconds: 30 }, commands: { yes: false, off: true }, report: { store: false }, warn: () => undefined });
      if (r.kind !== 'verified') throw new Error(`not verified: ${r.kind}`);
      return r.set.results.find((x) => x.criterionId === 'ISC-A-1')!;
    };
    const clean = await run(project({ 'src/app.js': 'module.exports = {};\n', 'PRD.md': prd }));
    assert.equal(clean.outcome, 'PASS', clean.evidence);
    const broken = await run(project({ 'src/app.js': 'module.exports = {};\n', 'src/x.js': 'console.log(1);\n', 'PRD.md': prd }));
    assert.equal(broken.outcome, 'FAIL', broken.evidence);
    assert.match(broken.evidence, /^1 matching line in 1 file of workspace files/);
    assert.match(broken.evidence, /first: src\/x\.js:1$/m);
  });
});
