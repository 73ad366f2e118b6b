import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isCancellation } from '../../../src/model/errors';
import { CriterionResult, VerificationReport, type AnyCriterion } from '../../../src/model';
import { startOrder, verifyCriteria } from '../../../src/verify/verify-criteria';
import { CancelledError } from '../../../src/model/errors';
import { buildVerificationReport } from '../../../src/verify/report';
import type { AuditorView, CriterionJudge, DiagnosticEntry, VerifyHost } from '../../../src/verify/types';
import { alive, anti, criterion, pids, testRipgrep, until, workspace } from '../support/verify-helpers';
import type { ProcessRunner } from '../../../src/verify/process-runner';
import { runCommand } from '../../../src/verify/run-command';
import { runRipgrep } from '../../../src/verify/search-ripgrep';

const run = (criteria: AnyCriterion[], host: VerifyHost, extra: Partial<Parameters<typeof verifyCriteria>[2]> = {}) => verifyCriteria(criteria, host, { parallelism: 4, timeoutMs: 20_000, ...extra });

describe('verify: the engine', () => {
  it('verifies a mixed set, each result valid against the report schema, in criteria order', async () => {
    const root = workspace({ 'src/a.ts': 'export const darkMode = true;\n' });
    const criteria = [
      criterion({ type: 'CLI', command: 'true' }),
      criterion({ type: 'GREP', pattern: 'darkMode', expect: 'present' }),
      criterion({ type: 'READ', path: 'src/a.ts' }),
      criterion({ type: 'READ', path: 'missing.ts' }),
      criterion(undefined),
    ];
    const set = await run(criteria, { workspaceRoot: root });
    assert.deepEqual(set.results.map((r) => r.criterionId), criteria.map((c) => c.id));
    assert.deepEqual(set.results.map((r) => r.outcome), ['PASS', 'PASS', 'PASS', 'FAIL', 'UNKNOWN']);
    for (const r of set.results) {
      CriterionResult.parse(r);
      assert.ok(r.durationMs >= 0);
    }
    const noMethod = set.results[4]!;
    assert.deepEqual([noMethod.failureLabel, noMethod.evidence], ['AMBIGUITY', 'this criterion names no verification method']);
    assert.deepEqual(set.counts, { PASS: 3, FAIL: 1, PARTIAL: 0, UNKNOWN: 1 });
    assert.equal(set.passed, false);
    assert.equal(set.summary, `3 of 5 criteria pass (1 FAIL, 1 UNKNOWN); not passing CRITICAL: ${criteria[3]!.id}, ${criteria[4]!.id}`);
    assert.deepEqual(set.coverage[criteria[2]!.id], { paths: ['src/a.ts'] });
    assert.deepEqual(set.coverage[criteria[0]!.id], { workspace: true });
  });

  it('is fail-closed: only CRITICAL criteria decide, and UNKNOWN is never a pass', async () => {
    const root = workspace();
    const nice = criterion({ type: 'CLI', command: 'false' }, { priority: 'NICE' });
    const important = criterion({ type: 'CLI', command: 'false' }, { priority: 'IMPORTANT' });
    const critical = criterion({ type: 'CLI', command: 'true' });
    const ok = await run([nice, important, critical], { workspaceRoot: root });
    assert.equal(ok.passed, true);
    assert.match(ok.summary, /every CRITICAL criterion passes/);
    const unknown = await run([critical, criterion({ type: 'CUSTOM', description: 'looks right' })], { workspaceRoot: root });
    assert.equal(unknown.passed, false);
    assert.equal(unknown.results[1]!.evidence, 'no model configured to judge this criterion (Custom needs one: Select Model, or a models file)');
  });

  it('starts the criteria that run a command first when they cannot all start at once, and reports in set order', async () => {
    const root = workspace({ 'src/a.ts': 'export const darkMode = true;\n' });
    const started: string[] = [];
    // Each command notes itself in a file as it starts: the order the engine started them in.
    const log = path.join(root, 'started.log');
    const cli = (n: number) => criterion({ type: 'CLI', command: `echo cli${n} >> started.log` });
    const criteria = [
      criterion({ type: 'GREP', pattern: 'darkMode', expect: 'present' }),
      criterion({ type: 'READ', path: 'src/a.ts' }),
      criterion({ type: 'GREP', pattern: 'lightMode', expect: 'absent' }),
      cli(1),
      cli(2),
    ];
    assert.deepEqual(startOrder(criteria, {}, 2), [3, 4, 0, 1, 2]);
    assert.deepEqual(startOrder(criteria, {}, 1), [0, 1, 2, 3, 4], 'one at a time keeps the set order');
    assert.deepEqual(startOrder(criteria, {}, 5), [0, 1, 2, 3, 4], 'all at once keeps the set order');
    const set = await run(criteria, { workspaceRoot: root }, { parallelism: 2, onResult: (r) => started.push(r.criterionId) });
    assert.deepEqual(set.results.map((r) => r.criterionId), criteria.map((c) => c.id));
    assert.deepEqual(set.results.map((r) => r.outcome), ['PASS', 'PASS', 'PASS', 'PASS', 'PASS']);
    assert.deepEqual(fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).sort(), ['cli1', 'cli2']);
    // The two commands took both slots first: every other criterion finished after one of them.
    assert.ok([criteria[3]!.id, criteria[4]!.id].includes(started[0]!), `first finished: ${started[0]}`);
  });

  it('starts the commands\' processes before a search\'s that starts with them: nothing is looked up before a command in the workspace folder (issue 26)', async () => {
    const root = workspace({ 'src/a.ts': 'export const darkMode = true;\n' });
    const calls: string[] = [];
    // The real runners, each call noted as it is made: the order the processes are started in.
    const processes: ProcessRunner = {
      runCommand: (options) => (calls.push(`command ${options.command}`), runCommand(options)),
      runRipgrep: (options) => (calls.push('ripgrep'), runRipgrep(options)),
    };
    const rg = testRipgrep();
    const grep = () => criterion({ type: 'GREP', pattern: 'darkMode', expect: 'present' });
    // Three at once: the two commands and a search start together (startOrder puts the commands first).
    const criteria = [grep(), grep(), criterion({ type: 'CLI', command: 'true' }), criterion({ type: 'CLI', command: 'exit 0' })];
    const set = await run(criteria, { workspaceRoot: root, ...(rg ? { ripgrepPath: rg } : {}), processes }, { parallelism: 3 });
    assert.deepEqual(set.results.map((r) => r.outcome), ['PASS', 'PASS', 'PASS', 'PASS']);
    assert.deepEqual(calls.slice(0, 2), ['command true', 'command exit 0']);
  });

  it('runs at most `parallelism` criteria at once', async () => {
    let running = 0;
    let most = 0;
    const judge: CriterionJudge = {
      label: 'scripted: counter',
      async judge() {
        running++;
        most = Math.max(most, running);
        await new Promise((r) => setTimeout(r, 60));
        running--;
        return { outcome: 'PASS', evidence: 'fine' };
      },
    };
    const criteria = Array.from({ length: 9 }, () => criterion({ type: 'CUSTOM', description: 'x' }));
    await run(criteria, { workspaceRoot: workspace(), judge }, { parallelism: 3 });
    assert.equal(most, 3);
    most = 0;
    await run(criteria, { workspaceRoot: workspace(), judge }, { parallelism: 1 });
    assert.equal(most, 1);
    most = 0;
    const odd = await run(criteria.slice(0, 3), { workspaceRoot: workspace(), judge }, { parallelism: Number.NaN });
    assert.deepEqual([most, odd.counts.PASS], [1, 3], 'a parallelism that is not a number runs one at a time');
  });

  it('gives each criterion its timeout: a command past it fails as an execution error and its tree is killed', async () => {
    const root = workspace();
    const slow = criterion({ type: 'CLI', command: 'sleep 30 & echo $$ $! > pids.txt; wait' });
    const own = criterion({ type: 'CLI', command: 'sleep 30', timeoutMs: 300 });
    const set = await run([slow, own], { workspaceRoot: root }, { timeoutMs: 400 });
    for (const r of set.results) assert.deepEqual([r.outcome, r.failureLabel, r.actual], ['FAIL', 'EXECUTION_ERROR', 'timeout']);
    assert.match(set.results[1]!.evidence, /did not finish within 0\.3 s/);
    for (const pid of pids(path.join(root, 'pids.txt'))) await until(() => !alive(pid), `pid ${pid} to be gone`);
  });

  it('on cancel kills running commands, starts no more criteria and throws a CancelledError saying how far it got', async () => {
    const root = workspace();
    const controller = new AbortController();
    const criteria = [
      criterion({ type: 'CLI', command: 'sleep 30 & echo $$ $! > pids.txt; wait' }),
      ...Array.from({ length: 4 }, (_, i) => criterion({ type: 'CLI', command: `touch started-${i}` })),
    ];
    const seen: string[] = [];
    const running = run(criteria, { workspaceRoot: root }, { parallelism: 1, signal: controller.signal, onResult: (r) => seen.push(r.criterionId) });
    await until(() => pids(path.join(root, 'pids.txt')).length === 2, 'the first command to start');
    controller.abort();
    await assert.rejects(running, (error: unknown) => isCancellation(error) && error instanceof CancelledError && error.progress?.finished === 0 && error.progress.total === 5);
    for (const pid of pids(path.join(root, 'pids.txt'))) await until(() => !alive(pid), `pid ${pid} to be gone`);
    assert.deepEqual(fs.readdirSync(root).filter((n) => n.startsWith('started-')), [], 'no later criterion started');
    assert.deepEqual(seen, [], 'a cancelled criterion is not reported as a result');
  });

  it('throws at once when cancelled before it starts', async () => {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(run([criterion({ type: 'CLI', command: 'true' })], { workspaceRoot: workspace() }, { signal: controller.signal }), CancelledError);
  });

  it('asks the approver once with every command before running any; denied commands are UNKNOWN, the rest still run', async () => {
    const root = workspace({ 'a.txt': 'hello\n' });
    const asked: string[][] = [];
    const criteria = [
      criterion({ type: 'CLI', command: 'touch ran-1' }),
      criterion({ type: 'TEST', test: 'touch ran-2' }),
      criterion({ type: 'TASK', task: 'build' }),
      criterion({ type: 'CLI', command: 'touch ran-1' }),
      criterion({ type: 'READ', path: 'a.txt' }),
    ];
    const set = await run(criteria, {
      workspaceRoot: root,
      approver: {
        async approve(commands) {
          asked.push(commands);
          assert.deepEqual(fs.readdirSync(root).filter((n) => n.startsWith('ran-')), [], 'nothing ran before approval');
          return { approved: false, reason: 'the user said no' };
        },
      },
    });
    assert.deepEqual(asked, [['touch ran-1', 'touch ran-2', 'task: build']]);
    assert.deepEqual(set.results.map((r) => r.outcome), ['UNKNOWN', 'UNKNOWN', 'UNKNOWN', 'UNKNOWN', 'PASS']);
    assert.equal(set.results[0]!.evidence, '`touch ran-1` was not run: the user said no');
    assert.equal(set.results[0]!.failureLabel, 'UNSUPPORTED_CLAIM');
    assert.deepEqual(fs.readdirSync(root).filter((n) => n.startsWith('ran-')), []);
    let calls = 0;
    const approved = await run(criteria.slice(0, 2), { workspaceRoot: root, approver: { approve: async () => (calls++, { approved: true }) } });
    assert.deepEqual([calls, approved.results.map((r) => r.outcome)], [1, ['PASS', 'PASS']]);
    let none = 0;
    await run([criteria[4]!], { workspaceRoot: root, approver: { approve: async () => (none++, { approved: true }) } });
    assert.equal(none, 0, 'a set without commands asks nothing');
  });

  it('STATIC: the host diagnostics by severity and glob; outside the editor UNKNOWN unless a command is given', async () => {
    const root = workspace();
    const entries: DiagnosticEntry[] = [
      { file: 'src/a.ts', line: 3, severity: 'error', message: "Cannot find name 'x'.", source: 'ts' },
      { file: 'test/b.ts', line: 1, severity: 'warning', message: 'unused' },
    ];
    const globs: (string | undefined)[] = [];
    const diagnostics = { collect: async (glob: string | undefined) => (globs.push(glob), entries) };
    const errorsInSrc = criterion({ type: 'STATIC', check: 'diagnostics: no errors in src/**' });
    const errorsInTest = criterion({ type: 'STATIC', check: 'no errors in test/**' });
    const warnings = criterion({ type: 'STATIC', check: 'no warnings' });
    const set = await run([errorsInSrc, errorsInTest, warnings], { workspaceRoot: root, diagnostics });
    assert.deepEqual(set.results.map((r) => r.outcome), ['FAIL', 'PASS', 'FAIL']);
    assert.equal(set.results[0]!.evidence, "1 error in files matching src/**\nsrc/a.ts:3: error: Cannot find name 'x'. [ts]");
    assert.deepEqual(set.results[0]!.locations, [{ file: 'src/a.ts', line: 3 }]);
    assert.deepEqual(globs, ['src/**', 'test/**', undefined]);
    const outside = await run([errorsInSrc, criterion({ type: 'STATIC', check: 'no errors in src/**', command: 'true' })], { workspaceRoot: root });
    assert.deepEqual(outside.results.map((r) => [r.outcome, r.failureLabel]), [['UNKNOWN', 'UNSUPPORTED_CLAIM'], ['PASS', undefined]]);
  });

  it('CUSTOM: the judge sees the auditor view only; BROWSER without a runner is UNKNOWN', async () => {
    const views: AuditorView[] = [];
    const judge: CriterionJudge = { label: 'scripted: auditor', judge: async (view) => (views.push(view), { outcome: 'PARTIAL', evidence: 'two of three cases' }) };
    const c = criterion({ type: 'CUSTOM', description: 'Toggle is reachable by keyboard' });
    const earlier = CriterionResult.parse({ criterionId: c.id, outcome: 'FAIL', evidence: 'before', durationMs: 1, failureLabel: 'REQUIREMENT_COVERAGE' });
    const other = CriterionResult.parse({ criterionId: 'ISC-999', outcome: 'PASS', evidence: 'x', durationMs: 1 });
    const set = await run([c, criterion({ type: 'BROWSER', scenario: 'open the settings page' })], { workspaceRoot: workspace(), judge }, { criteriaVersion: 3, earlierResults: [earlier, other], candidate: { id: 'cand-1', summary: 'added toggle', evidence: ['diff'] } });
    assert.deepEqual(Object.keys(views[0]!).sort(), ['candidate', 'criteriaVersion', 'criterion', 'earlierResults']);
    assert.equal(views[0]!.criteriaVersion, 3);
    assert.deepEqual(views[0]!.earlierResults, [earlier], 'only earlier results on this criterion');
    assert.deepEqual([set.results[0]!.outcome, set.results[0]!.evidence, set.results[0]!.failureLabel, set.results[0]!.repairTarget], ['PARTIAL', 'scripted: auditor: two of three cases', 'REQUIREMENT_COVERAGE', c.text]);
    assert.deepEqual([set.results[1]!.outcome, set.results[1]!.failureLabel], ['UNKNOWN', 'UNSUPPORTED_CLAIM']);
  });

  it('a judge that throws is UNKNOWN (EXECUTION_ERROR) with key-shaped text redacted; a hung one is stopped at its timeout', async () => {
    const failing: CriterionJudge = { label: 'scripted: broken', judge: async () => Promise.reject(new Error('401 for key sk-abcdefghijklmnop')) };
    const set = await run([criterion({ type: 'CUSTOM', description: 'x' })], { workspaceRoot: workspace(), judge: failing });
    assert.equal(set.results[0]!.outcome, 'UNKNOWN');
    assert.equal(set.results[0]!.evidence, 'the judge (scripted: broken) could not answer: 401 for key [redacted]');
    const hung: CriterionJudge = { label: 'scripted: hung', judge: () => new Promise(() => undefined) };
    const slow = await run([criterion({ type: 'CUSTOM', description: 'x' })], { workspaceRoot: workspace(), judge: hung }, { timeoutMs: 50 });
    assert.deepEqual([slow.results[0]!.outcome, slow.results[0]!.failureLabel], ['UNKNOWN', 'EXECUTION_ERROR']);
  });

  it('anti-criteria hold when the bad thing is absent', async () => {
    const root = workspace({ 'logs/server.txt': 'GET / 200\n' });
    const noKey = anti({ type: 'GREP', pattern: 'sk-[A-Za-z0-9]{20,}', expect: 'present' });
    const noEnv = anti({ type: 'READ', path: '.env' });
    const set = await run([noKey, noEnv], { workspaceRoot: root });
    assert.deepEqual(set.results.map((r) => r.outcome), ['PASS', 'PASS']);
    fs.writeFileSync(path.join(root, '.env'), 'OPENAI_API_KEY=sk-aaaaaaaaaaaaaaaaaaaaaaaa\n');
    const leaked = await run([noKey, noEnv], { workspaceRoot: root });
    assert.deepEqual(leaked.results.map((r) => [r.outcome, r.failureLabel]), [['FAIL', 'CONSTRAINT_VIOLATION'], ['FAIL', 'CONSTRAINT_VIOLATION']]);
    assert.equal(leaked.passed, false);
  });

  it('builds a verification report the store schema accepts', async () => {
    const set = await run([criterion({ type: 'CLI', command: 'true' })], { workspaceRoot: workspace() });
    const report = buildVerificationReport(set, { runId: 'run-abcdef123', iteration: 1, criteriaVersion: 2, now: new Date('2026-11-22T01:00:00.000Z') });
    VerificationReport.parse(report);
    assert.deepEqual([report.passed, report.summary, report.createdAt, report.results.length], [true, '1 of 1 criteria pass', '2026-11-22T01:00:00.000Z', 1]);
  });
});
