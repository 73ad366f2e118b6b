import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../support/cli-helpers';
import { DEMO_PRD, demoWorkspace, edit } from '../support/gate-lock-helpers';

const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 't@example.com' };

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' });
}

/** A real repository: main has the demo workspace with every CRITICAL criterion passing. */
function repository(): string {
  const ws = demoWorkspace();
  fs.writeFileSync(path.join(ws, 'CHANGELOG.md'), '# Changelog\n');
  git(ws, 'init', '-q', '-b', 'main');
  git(ws, 'add', '-A');
  git(ws, 'commit', '-qm', 'main');
  return ws;
}

describe('command line: verify --criteria-from REF (CI reads the criteria from the default branch)', function () {
  this.timeout(120_000);

  it('a branch that weakens a criterion fails, listed as "changed, needs review" in every report format', async () => {
    const ws = repository();
    git(ws, 'checkout', '-qb', 'weaken');
    edit(ws, DEMO_PRD, (t) => t.replace('ISC-DEMO-004: A changelog', 'ISC-DEMO-004: [NICE] A changelog'));
    git(ws, 'commit', '-qam', 'weaken');
    const base = ['verify', path.join(ws, DEMO_PRD), '--workspace', ws, '--no-store', '--criteria-from', 'main'];
    const table = await runCli(base);
    assert.equal(table.code, 1, table.err);
    assert.match(table.out, /changed, needs review \(since main\): ISC-DEMO-004 was changed \(priority CRITICAL → NICE\)/);

    const reports = path.join(ws, 'reports');
    fs.mkdirSync(reports);
    const all = await runCli([...base, '--json', '--report', `junit=${reports}/j.xml`, '--report', `sarif=${reports}/s.sarif`, '--report', `markdown=${reports}/m.md`]);
    assert.equal(all.code, 1, all.err);
    const json = JSON.parse(all.out);
    assert.equal(json.passed, false);
    assert.match(JSON.stringify(json.results.find((r: { id: string }) => r.id === 'ISC-DEMO-004')), /changed, needs review/);
    for (const f of ['j.xml', 's.sarif', 'm.md']) assert.match(fs.readFileSync(path.join(reports, f), 'utf8'), /changed, needs review/, f);

    const allowed = await runCli([...base, '--allow-criteria-changes']);
    assert.equal(allowed.code, 0, allowed.out);
    assert.match(allowed.out, /changed, needs review \(since main; allowed by --allow-criteria-changes\)/);
  });

  it('a branch that removes a criterion, or changes the task it runs, fails; one that adds a criterion passes', async () => {
    const ws = repository();
    git(ws, 'checkout', '-qb', 'remove');
    edit(ws, DEMO_PRD, (t) => t.replace(/^- \[ \] ISC-DEMO-004:.*\n/m, ''));
    const removed = await runCli(['verify', path.join(ws, DEMO_PRD), '--workspace', ws, '--no-store', '--criteria-from', 'main']);
    assert.equal(removed.code, 1, removed.out);
    assert.match(removed.out, /ISC-DEMO-004 was removed/);
    git(ws, 'checkout', '-q', '--', '.');

    edit(ws, '.vscode/tasks.json', (t) => t.replace('"test -f CHANGELOG.md"', '"true"'));
    const task = await runCli(['verify', path.join(ws, DEMO_PRD), '--workspace', ws, '--no-store', '--criteria-from', 'main']);
    assert.equal(task.code, 1, task.out);
    assert.match(task.out, /the task check: changelog exists was changed since main/);
    git(ws, 'checkout', '-q', '--', '.');

    git(ws, 'checkout', '-qb', 'add');
    edit(ws, DEMO_PRD, (t) => t.replace('## Anti-Criteria', '- [ ] ISC-DEMO-007: The package manifest names the project | Verify: Grep: sample-workspace\n\n## Anti-Criteria'));
    git(ws, 'commit', '-qam', 'add a criterion');
    const added = await runCli(['verify', path.join(ws, DEMO_PRD), '--workspace', ws, '--no-store', '--criteria-from', 'main']);
    assert.equal(added.code, 0, added.out);
    assert.doesNotMatch(added.out, /needs review/);
    assert.match(added.out, /ISC-DEMO-007/);
  });

  it('a committed weakening of what a check runs (a script, the Makefile, .npmrc) is "changed, needs review" and fails the job', async () => {
    const ws = repository();
    fs.writeFileSync(path.join(ws, 'Makefile'), 'check:\n\ttest -f CHANGELOG.md\n');
    fs.mkdirSync(path.join(ws, 'scripts'));
    fs.writeFileSync(path.join(ws, 'scripts', 'check.mjs'), "import { existsSync } from 'node:fs';\nprocess.exit(existsSync('CHANGELOG.md') ? 0 : 1);\n");
    edit(ws, DEMO_PRD, (t) => t.replace('## Anti-Criteria', '- [ ] ISC-DEMO-008: The make check target passes | Verify: CLI: make check\n- [ ] ISC-DEMO-009: The check script passes | Verify: CLI: node scripts/check.mjs\n- [ ] ISC-DEMO-010: The package tests pass | Verify: CLI: npm test\n\n## Anti-Criteria'));
    git(ws, 'add', '-A');
    git(ws, 'commit', '-qm', 'checks');
    git(ws, 'checkout', '-qb', 'weaken-inputs');
    fs.writeFileSync(path.join(ws, 'Makefile'), 'check:\n\ttrue\n');
    fs.writeFileSync(path.join(ws, 'scripts', 'check.mjs'), 'process.exit(0);\n');
    fs.writeFileSync(path.join(ws, '.npmrc'), 'script-shell=/bin/true\n');
    git(ws, 'add', '-A');
    git(ws, 'commit', '-qm', 'weaken what the checks run');
    const r = await runCli(['verify', path.join(ws, DEMO_PRD), '--workspace', ws, '--no-store', '--no-commands', '--criteria-from', 'main']);
    assert.equal(r.code, 1, r.out);
    for (const file of ['Makefile', 'scripts/check.mjs', '.npmrc']) assert.match(r.out, new RegExp(`the file ${file.replace(/\./g, '\\.')}, which a check runs, was (changed|added) since main`), r.out);
  });

  it('refuses a REF that is not a revision, with exit 2', async () => {
    const ws = repository();
    const r = await runCli(['verify', path.join(ws, DEMO_PRD), '--workspace', ws, '--no-store', '--criteria-from', 'no-such-branch']);
    assert.equal(r.code, 2);
    assert.match(r.err, /--criteria-from no-such-branch: not a revision of the git repository/);
  });
});
