import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { verifyCommand } from '../../../src/cli/commands/verify';
import { Store } from '../../../src/store/store';
import { REPO, workspace } from '../support/verify-helpers';

const CLI = path.join(REPO, 'dist/cli.js');
const SAMPLE = path.join(REPO, 'test/fixtures/sample-workspace');
const DEMO = path.join(SAMPLE, '.ideal-state/prds/PRD-20261122-verification-demo.md');

function verify(args: string[], cwd = REPO) {
  // No terminal here, as in CI: only the commands .ideal-state/verify-commands.yaml allows run, or all with --yes.
  const r = spawnSync(process.execPath, [CLI, 'verify', ...args], { cwd, encoding: 'utf8', env: { ...process.env, OPENAI_API_KEY: 'sk-planted-cli-key' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const tmpStore = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-verify-store-')), 'store.sqlite');

const PRD = (criteria: string[]) =>
  ['---', 'prd: true', 'id: PRD-20261122-cli', 'status: DRAFT', 'effort_level: INSTANT', '---', '', '# CLI fixture', '', '## Problem Space', 'x', '', '## Ideal State Criteria', ...criteria, '', '## LOG', ''].join('\n');

describe('command line: verify', () => {
  it('gives the right outcomes on the repo’s own example PRD and exits 1 (a CRITICAL criterion fails)', () => {
    const r = verify([DEMO, '--workspace', SAMPLE, '--json', '--store', tmpStore()]);
    assert.equal(r.code, 1, r.err);
    const out = JSON.parse(r.out);
    assert.equal(out.passed, false);
    assert.deepEqual(
      Object.fromEntries(out.results.map((x: { id: string; outcome: string }) => [x.id, x.outcome])),
      {
        'ISC-VER-001': 'PASS',
        'ISC-VER-002': 'PASS',
        'ISC-VER-003': 'PASS',
        'ISC-VER-004': 'PASS',
        'ISC-VER-005': 'FAIL',
        'ISC-VER-006': 'FAIL',
        'ISC-A-VER-001': 'PASS',
        'ISC-A-VER-002': 'PASS',
        'ISC-A-VER-003': 'FAIL',
      },
    );
    assert.deepEqual(out.counts, { PASS: 6, FAIL: 3, PARTIAL: 0, UNKNOWN: 0 });
    const byId = (id: string) => out.results.find((x: { id: string }) => x.id === id);
    assert.deepEqual([byId('ISC-VER-005').failureLabel, byId('ISC-VER-005').repairTarget], ['REQUIREMENT_COVERAGE', 'CHANGELOG.md exists']);
    assert.equal(byId('ISC-A-VER-003').failureLabel, 'CONSTRAINT_VIOLATION');
    assert.deepEqual(byId('ISC-A-VER-003').locations, [{ file: 'src/greet.js', line: 3 }]);
    assert.equal(typeof byId('ISC-VER-004').durationMs, 'number');
    assert.equal(out.parallelism, 2, 'FAST from the PRD’s effort_level');
  });

  it('prints a table with id, outcome, duration and the evidence’s first line', () => {
    const r = verify([DEMO, '--workspace', SAMPLE, '--no-store']);
    assert.equal(r.code, 1);
    assert.match(r.out, /^criterion\s+outcome\s+time\s+evidence$/m);
    assert.match(r.out, /^ISC-VER-005\s+FAIL\s+\d+\.\d s\s+CHANGELOG\.md does not exist$/m);
    assert.match(r.out, /^ISC-VER-004\s+PASS\s+\d+\.\d s\s+`npm test` exited 0/m);
    assert.match(r.out, /^NOT PASSED: 6 of 9 criteria pass \(3 FAIL\); not passing CRITICAL: ISC-VER-005, ISC-A-VER-003 \(effort FAST, 2 at a time\)$/m);
  });

  it('exits 0 when every CRITICAL criterion passes (a NICE one may fail), with --effort setting parallelism', () => {
    const root = workspace({ 'src/a.ts': 'export const ok = 1;\n' });
    const file = path.join(root, 'PRD.md');
    fs.writeFileSync(file, PRD(['- [ ] ISC-1: The source exports the ok constant | Verify: Grep: export const ok', '- [ ] ISC-2: [NICE] The workspace has a licence file | Verify: Read: LICENSE']));
    const r = verify([file, '--workspace', root, '--json', '--effort', 'deep', '--no-store']);
    assert.equal(r.code, 0, r.err);
    const out = JSON.parse(r.out);
    assert.deepEqual([out.passed, out.effort, out.parallelism, out.results.map((x: { outcome: string }) => x.outcome)], [true, 'DEEP', 10, ['PASS', 'FAIL']]);
  });

  it('exits 2 on bad input: unreadable file, PRD errors with line numbers, unknown effort, no criteria', () => {
    const missing = verify([path.join(os.tmpdir(), 'no-such-prd.md'), '--no-store']);
    assert.equal(missing.code, 2);
    assert.match(missing.err, /cannot read .*no-such-prd\.md: ENOENT/);
    const root = workspace();
    const broken = path.join(root, 'broken.md');
    fs.writeFileSync(broken, PRD(['- [ ] ISC-1: The source exports the ok constant | Verify: Telepathy: yes', '- [ ] ISC-1: A second criterion reuses the first id | Verify: Read: x']));
    const errors = verify([broken, '--workspace', root, '--no-store']);
    assert.equal(errors.code, 2);
    assert.match(errors.err, /broken\.md:14:\d+: error: unknown verification type "Telepathy"/);
    assert.match(errors.err, /broken\.md:15:\d+: error: ISC-1 is used by an earlier criterion/);
    const empty = path.join(root, 'empty.md');
    fs.writeFileSync(empty, PRD([]));
    assert.equal(verify([empty, '--workspace', root, '--no-store']).code, 2);
    assert.equal(verify([broken, '--effort', 'LUDICROUS', '--no-store']).code, 2);
    assert.equal(verify([]).code, 2);
    assert.equal(verify([empty, '--workspace', path.join(root, 'nope')]).code, 2);
  });

  it('--write changes only checkboxes and appends a LOG entry; the report goes into the store', async () => {
    const root = workspace({ 'src/a.ts': 'export const ok = 1;\n' });
    const file = path.join(root, '.ideal-state', 'prds', 'PRD.md');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const text = PRD(['- [x] ISC-1: The source exports the ok constant | Verify: Grep: export const ok', '- [x] ISC-2: The project test command exits with status zero | Verify: CLI: exit 5']);
    fs.writeFileSync(file, text);
    const store = tmpStore();
    const r = verify([file, '--workspace', root, '--write', '--store', store, '--json', '--yes']);
    assert.equal(r.code, 1, r.err);
    const out = JSON.parse(r.out);
    assert.equal(out.written, true);
    const after = fs.readFileSync(file, 'utf8');
    const before = text.split('\n');
    const changed = after.split('\n').map((l, i) => (l === before[i] ? undefined : i)).filter((i) => i !== undefined && i < before.length - 1);
    assert.deepEqual(changed, [14], 'only ISC-2, which failed, changed above the LOG');
    assert.match(after, /- \[ \] ISC-2:/);
    assert.match(after, /### Iteration 0 — \d{4}-\d\d-\d\d\n- Phase: VERIFY\n- Criteria: 1\/2 passing\n- Work: Verified 2 criteria with ideal-state verify: 1 PASS, 1 FAIL\n- Failing: ISC-2\n$/);
    // The answer did not wait for the store: the report is a pending record beside it, with its id
    // chosen, and the store's next writable open folds it in (src/store/pending.ts).
    assert.equal(out.stored.pending, true);
    assert.equal(out.stored.runId, undefined, 'the PRD names no run: it is chosen when the record is folded in');
    assert.equal(fs.readdirSync(`${store}.pending`).filter((n) => n.endsWith('.json')).length, 1);
    let runId: string;
    const db = await Store.open({ file: store });
    try {
      const report = db.reports.where('id = ?', [out.stored.reportId])[0]!;
      assert.ok(report, 'the report is in the store after its next open');
      runId = report.runId;
      assert.deepEqual([report.passed, report.results.map((x) => x.outcome)], [false, ['PASS', 'FAIL']]);
      assert.equal(db.reports.where('run_id = ?', [runId]).length, 1);
      assert.equal(db.runs.get(runId)!.prdPath, '.ideal-state/prds/PRD.md');
      assert.deepEqual(db.criteria.list(runId).map((c) => c.outcome), ['PASS', 'FAIL']);
      assert.equal(db.prdIndex.where('path = ?', ['.ideal-state/prds/PRD.md'])[0]!.runId, runId);
    } finally {
      db.close();
    }
    assert.deepEqual(fs.readdirSync(`${store}.pending`).filter((n) => n.endsWith('.json')), [], 'folded once, then removed');
    const again = JSON.parse(verify([file, '--workspace', root, '--store', store, '--json', '--yes']).out);
    const reopened = await Store.open({ file: store });
    try {
      assert.equal(reopened.reports.where('id = ?', [again.stored.reportId])[0]!.runId, runId, 'the same PRD keeps its run');
    } finally {
      reopened.close();
    }
  });

  it('runs commands with no secrets in their environment, and --no-commands runs none', () => {
    const root = workspace();
    const file = path.join(root, 'PRD.md');
    fs.writeFileSync(file, PRD(['- [ ] ISC-1: The command environment holds no OpenAI key at all | Verify: CLI: test -z "$OPENAI_API_KEY"', '- [ ] ISC-2: Running a command leaves a marker file in the workspace | Verify: CLI: touch marker']));
    // In place: the marker is the proof the command ran (in a snapshot it would be left in the copy).
    const r = verify([file, '--workspace', root, '--json', '--no-store', '--yes', '--in-place']);
    assert.equal(r.code, 0, r.out);
    fs.rmSync(path.join(root, 'marker'));
    const off = verify([file, '--workspace', root, '--json', '--no-store', '--no-commands']);
    assert.equal(off.code, 1);
    assert.deepEqual(JSON.parse(off.out).results.map((x: { outcome: string; evidence: string }) => [x.outcome, x.evidence]), [
      ['UNKNOWN', '`test -z "$OPENAI_API_KEY"` was not run: commands were turned off with --no-commands'],
      ['UNKNOWN', '`touch marker` was not run: commands were turned off with --no-commands'],
    ]);
    assert.equal(fs.existsSync(path.join(root, 'marker')), false);
  });

  it('without a terminal runs no PRD command unless the committed allow-list names it or --yes is given, and says which it skipped and why', () => {
    const root = workspace();
    const file = path.join(root, 'PRD.md');
    const outside = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-outside-')), 'env.txt');
    // A command a model could have written: it dumps the environment outside the workspace.
    fs.writeFileSync(file, PRD([`- [ ] ISC-1: The environment dump check passes in the workspace | Verify: CLI: env > ${outside}; true`, '- [ ] ISC-2: Running a command leaves a marker file in the workspace | Verify: CLI: touch marker']));
    const r = verify([file, '--workspace', root, '--json', '--no-store']);
    assert.equal(r.code, 1, r.err);
    const reason = 'no terminal to ask, and no .ideal-state/verify-commands.yaml allows it; list it there, or pass --yes to run every PRD command';
    const out = JSON.parse(r.out);
    assert.deepEqual(out.results.map((x: { outcome: string }) => x.outcome), ['UNKNOWN', 'UNKNOWN']);
    assert.deepEqual(out.skippedCommands, [
      { command: `env > ${outside}; true`, reason },
      { command: 'touch marker', reason },
    ]);
    assert.match(r.err, /skipped 2 commands \(their criteria are UNKNOWN\):\n  env > .*: no terminal to ask/);
    assert.equal(fs.existsSync(outside), false, 'nothing ran');
    assert.equal(fs.existsSync(path.join(root, 'marker')), false, 'nothing ran');

    // The allow-list: an exact command and a pattern whose * cannot take in a second command.
    fs.mkdirSync(path.join(root, '.ideal-state'));
    fs.writeFileSync(path.join(root, '.ideal-state/verify-commands.yaml'), 'commands:\n  - touch *\n  - env\n');
    const table = verify([file, '--workspace', root, '--no-store', '--in-place']);
    assert.equal(table.code, 1, table.err);
    assert.match(table.out, /^ISC-2\s+PASS/m);
    // The table's evidence column is cut at its width (the temporary path's length varies): the full reason is in the list under it.
    assert.match(table.out, /^ISC-1\s+UNKNOWN\s+[\d.]+ s\s+`env > /m);
    assert.match(table.out, /^ {2}env > .*; true: not in \.ideal-state\/verify-commands\.yaml/m);
    assert.match(table.out, /^skipped 1 command \(not run; its criterion is UNKNOWN\):\n  env > .*; true: not in \.ideal-state\/verify-commands\.yaml; pass --yes to run every PRD command$/m);
    assert.equal(fs.existsSync(outside), false, '`env` allows env, not env with a redirection and a second command');
    assert.ok(fs.existsSync(path.join(root, 'marker')));

    // --yes: every command, as asked for explicitly.
    const yes = verify([file, '--workspace', root, '--json', '--no-store', '--yes']);
    assert.equal(yes.code, 0, yes.err);
    assert.equal(JSON.parse(yes.out).skippedCommands, undefined);
    assert.ok(fs.existsSync(outside));
  });

  it('exits 2 on an allow-list it cannot read, with the file, line and what is wrong', () => {
    const root = workspace({ '.ideal-state/verify-commands.yaml': 'commands:\n  - npm test\n  - /npm (test/\n' });
    const file = path.join(root, 'PRD.md');
    fs.writeFileSync(file, PRD(['- [ ] ISC-1: Running a command leaves a marker file in the workspace | Verify: CLI: touch marker']));
    const r = verify([file, '--workspace', root, '--no-store']);
    assert.equal(r.code, 2, r.out);
    assert.match(r.err, /^\.ideal-state\/verify-commands\.yaml:3:5: commands\.1: not a valid \/regular expression\/$/m);
    assert.match(r.err, /cannot be read; fix it, or pass --yes or --no-commands/);
    assert.equal(fs.existsSync(path.join(root, 'marker')), false);
    // The flags decide without it.
    assert.equal(verify([file, '--workspace', root, '--no-store', '--yes']).code, 0);
  });

  it('on a terminal lists the commands and runs them only after a "y"', async () => {
    const root = workspace();
    const file = path.join(root, 'PRD.md');
    fs.writeFileSync(file, PRD(['- [ ] ISC-1: Running a command leaves a marker file in the workspace | Verify: CLI: touch marker']));
    for (const [answer, code, exists] of [['n', 1, false], ['', 1, false], ['y', 0, true]] as const) {
      const err: string[] = [];
      const questions: string[] = [];
      const out: string[] = [];
      const result = await verifyCommand([file, '--workspace', root, '--no-store', '--in-place'], { out: (s) => out.push(s), err: (s) => err.push(s), ask: async (q) => (questions.push(q), answer) });
      assert.equal(result, code, answer);
      assert.deepEqual(questions, ['Run them? [y/N] ']);
      assert.equal(err.join('\n'), 'This PRD runs 1 command in the workspace:\n  touch marker');
      assert.equal(fs.existsSync(path.join(root, 'marker')), exists, answer);
    }
  });
});
