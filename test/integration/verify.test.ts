import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { CriterionResult } from '../../src/model';
import { activateIdealState, extensionEngine, waitForLogLine, type IdealStateApi } from './ideal-state';

const until = async <T>(check: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 30_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
};

/** The process that started `pid` (Linux: /proc). */
const parentOf = (pid: number) => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
};

/** What "Ideal State: Verify Criteria" returns to a caller (see src/vscode/verify/verify-prd.ts). */
interface Verification {
  set: { results: CriterionResult[]; passed: boolean; summary: string };
  written: boolean;
}

const prd = (title: string, criteria: string[]) =>
  ['---', 'prd: true', `id: PRD-20261122-${title.toLowerCase().replace(/\W+/g, '-')}`, 'status: CRITERIA_DEFINED', 'effort_level: FAST', '---', '', `# ${title}`, '', '## Ideal State Criteria', ...criteria, '', '## LOG', ''].join('\n');

const DEMO = '.ideal-state/prds/PRD-20261122-verify-demo.md';
const ALLOWED = ['node --version', 'task: *'];

describe('verifying criteria in the editor', () => {
  let api: IdealStateApi;
  const folder = () => vscode.workspace.workspaceFolders![0]!.uri;
  const file = (relative: string) => vscode.Uri.joinPath(folder(), relative);
  const write = (uri: vscode.Uri, text: string) => vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(text));
  const read = async (uri: vscode.Uri) => new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  const created: vscode.Uri[] = [];
  const verify = (uri: vscode.Uri) => vscode.commands.executeCommand<Verification | undefined>('idealState.verifyCriteria', uri);
  const outcomes = (v: Verification | undefined) => Object.fromEntries((v?.set.results ?? []).map((r) => [r.criterionId, r.outcome]));

  before(async () => {
    api = await activateIdealState();
    // The user's own allow-list (user settings): these commands run without the confirmation dialog.
    await vscode.workspace.getConfiguration('idealState.verify').update('allowedCommands', ALLOWED, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    await vscode.workspace.getConfiguration('idealState.verify').update('allowedCommands', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    for (const uri of created) await vscode.workspace.fs.delete(uri, { recursive: true, useTrash: false }).then(undefined, () => undefined);
  });

  it('runs tasks.json tasks and npm scripts by name and passes on their exit code', async function () {
    this.timeout(120_000);
    const uri = file('verify-tasks.md');
    created.push(uri);
    await write(
      uri,
      prd('Tasks', [
        '- [ ] ISC-1: The greeting module file exists in the source folder | Verify: Task: check: greeting exists',
        '- [ ] ISC-2: A changelog file exists at the top of the workspace | Verify: Task: check: changelog exists',
        '- [ ] ISC-3: The readme file exists at the top of the workspace | Verify: Task: npm: check:readme',
        '- [ ] ISC-4: A licence file exists at the top of the workspace | Verify: Task: npm: check:license',
        '- [ ] ISC-5: A task by a name nobody defined runs without an error | Verify: Task: no such task',
      ]),
    );
    const v = await verify(uri);
    assert.ok(v, 'the command returned a verification');
    assert.deepEqual(outcomes(v), { 'ISC-1': 'PASS', 'ISC-2': 'FAIL', 'ISC-3': 'PASS', 'ISC-4': 'FAIL', 'ISC-5': 'FAIL' }, JSON.stringify(v.set.results, null, 2));
    const byId = (id: string) => v.set.results.find((r) => r.criterionId === id)!;
    assert.match(byId('ISC-2').evidence, /exited 1/);
    assert.match(byId('ISC-4').evidence, /exited 1/);
    assert.match(byId('ISC-5').evidence, /check: greeting exists/, 'a missing task lists the tasks there are');
    assert.match(byId('ISC-5').evidence, /npm: check:readme/, 'auto-detected npm scripts are among them');
    assert.equal(v.set.passed, false);

    const text = await read(uri);
    assert.match(text, /^- \[x\] ISC-1: /m);
    assert.match(text, /^- \[ \] ISC-2: /m);
    assert.match(text, /^- \[x\] ISC-3: /m);
    assert.match(text, /^- \[ \] ISC-4: /m);
    assert.match(text, /^- Criteria: 2\/5 passing$/m, text);
    assert.match(text, /^- Failing: ISC-2, ISC-4, ISC-5$/m, text);
  });

  it('reads real diagnostics for Static criteria (the JSON language server on a broken file)', async () => {
    const broken = file('config/broken.json');
    created.push(file('config'));
    await write(broken, '{\n  "name": "sample",\n  "version": 1,,\n}\n');
    await vscode.window.showTextDocument(broken);
    const diagnostics = await until(() => {
      const list = vscode.languages.getDiagnostics(broken).filter((d) => d.severity === vscode.DiagnosticSeverity.Error);
      return list.length > 0 ? list : undefined;
    }, 'the JSON language server to report the syntax error');
    const line = diagnostics[0]!.range.start.line + 1;

    const uri = file('verify-static.md');
    created.push(uri);
    await write(
      uri,
      prd('Static', [
        '- [ ] ISC-1: The configuration files have no errors in the editor | Verify: Static: no errors in config/**',
        '- [ ] ISC-2: The source files have no errors in the editor at all | Verify: Static: no errors in src/**',
      ]),
    );
    const v = await verify(uri);
    assert.deepEqual(outcomes(v), { 'ISC-1': 'FAIL', 'ISC-2': 'PASS' }, JSON.stringify(v?.set.results, null, 2));
    const failed = v!.set.results.find((r) => r.criterionId === 'ISC-1')!;
    assert.ok(failed.locations.some((l) => l.file === 'config/broken.json' && l.line === line), JSON.stringify(failed.locations));
  });

  it('does not ask again for a command the PRD’s run was approved to execute, and creates no criteria version', async function () {
    this.timeout(60_000);
    const e = extensionEngine();
    const store = await api.store();
    const command = 'node -e "process.exit(0)"';
    const relative = 'verify-reuse.md';
    const text = prd('Reuse', [`- [ ] ISC-1: The node runtime exits cleanly when asked from the terminal | Verify: CLI: ${command}`]);
    const uri = file(relative);
    created.push(uri);
    await write(uri, text);
    // The PRD's run, as a run that executed this command with the person's approval leaves it.
    const synced = e.syncPrdToStore(store, { text, path: relative, effortTable: e.shippedEffortTable() });
    assert.equal(synced.kind, 'created');
    const runId = synced.kind === 'created' ? synced.runId : '';
    const run = store.runs.get(runId)!;
    store.steps.save({ runId, seq: 0, at: new Date().toISOString(), phase: 'VERIFY', iteration: 1, gate: 'passed', memo: { coverage: {}, delta: '', compressed: false, pinned: [], learned: [], bestPassing: 0, approvedCommands: [command], deniedCommands: [] } });
    assert.ok(!ALLOWED.includes(command), 'not allow-listed: without the run’s approval a modal would ask');

    // A modal would wait for a person and time this test out: it passes only if nothing asks.
    const v = await verify(uri);
    assert.deepEqual(outcomes(v), { 'ISC-1': 'PASS' }, JSON.stringify(v?.set.results));
    await waitForLogLine(new RegExp(`1 command of ${relative} approved in ${runId}, not asked again`));
    assert.deepEqual(store.criteria.versions(runId), [run.criteriaVersion], 'no criteria version was created by verifying');
    assert.equal(store.criteria.list(runId, run.criteriaVersion)[0]!.outcome, 'PASS');
  });

  it('starts a criterion’s command from the window’s process host, not from the extension host (its Grep goes there too)', async function () {
    this.timeout(60_000);
    // The command writes the processes above it while they run: its shell (when the shell did not exec it), what started that, and its parent.
    created.push(file('parent-probe.js'), file('parent-chain.json'));
    await write(
      file('parent-probe.js'),
      [
        "const fs = require('fs');",
        "const parent = (pid) => { const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8'); return Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1]); };",
        'const chain = [];',
        'for (let pid = process.ppid, i = 0; i < 3 && pid > 1; pid = parent(pid), i++) chain.push({ pid, cmdline: fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\\0").join(" ") });',
        "fs.writeFileSync('parent-chain.json', JSON.stringify(chain));",
        '',
      ].join('\n'),
    );
    const command = 'node parent-probe.js';
    await vscode.workspace.getConfiguration('idealState.verify').update('allowedCommands', [...ALLOWED, command], vscode.ConfigurationTarget.Global);
    const uri = file('verify-process-host.md');
    created.push(uri);
    await write(uri, prd('Process host', [`- [ ] ISC-1: The probe records who started it, from the terminal | Verify: CLI: ${command}`, '- [ ] ISC-2: The probe names the chain file it writes out | Verify: Grep: parent-chain | glob: parent-probe.js']));
    /** Verifies the PRD and returns the process that started its command, past its shell. */
    const starterOfCheck = async () => {
      const v = await verify(uri);
      assert.deepEqual(outcomes(v), { 'ISC-1': 'PASS', 'ISC-2': 'PASS' }, JSON.stringify(v?.set.results, null, 2));
      const chain = JSON.parse(await read(file('parent-chain.json'))) as { pid: number; cmdline: string }[];
      const shown = chain.map((p) => `${p.pid} ${p.cmdline}`).join(' <- ');
      // What started the command (past its shell) is the process host, not this process, the extension host.
      const starter = chain.find((p) => !/^(\/bin\/)?sh -c /.test(p.cmdline));
      assert.ok(starter, shown);
      assert.notEqual(starter.pid, process.pid, `the extension host started the check: ${shown}`);
      assert.match(starter.cmdline, /process-host\.cjs/, shown);
      // The host is the extension host's own child.
      assert.equal(parentOf(starter.pid), process.pid, shown);
      return starter.pid;
    };
    try {
      const host = await starterOfCheck();
      await waitForLogLine(new RegExp(`checks start their processes from process ${host} \\(dist/process-host\\.cjs\\)`));
      // A host that ends (killed here) is started again at the next check, not left to the extension host.
      process.kill(host, 'SIGKILL');
      await waitForLogLine(/the process host ended \(SIGKILL\)/);
      const next = await starterOfCheck();
      assert.notEqual(next, host);
      await waitForLogLine(/the process host ended; starting another \(1 of 3 in this window\)/);
    } finally {
      await vscode.workspace.getConfiguration('idealState.verify').update('allowedCommands', ALLOWED, vscode.ConfigurationTarget.Global);
    }
  });

  it('lists each PRD in the Testing view with its criteria linked to their lines', async () => {
    const demo = file(DEMO);
    const items = await until(async () => (await api.criteriaTests()).find((p) => p.uri.toString() === demo.toString()), 'the demo PRD in the Testing view');
    assert.deepEqual(
      items.criteria.map((c) => `${c.id}@${c.line}`),
      ['ISC-DEMO-001@25', 'ISC-DEMO-002@26', 'ISC-DEMO-003@27', 'ISC-DEMO-004@28', 'ISC-DEMO-005@29', 'ISC-DEMO-006@30', 'ISC-A-DEMO-001@33'],
    );
    const all = await api.criteriaTests();
    assert.ok(all.some((p) => p.uri.path.endsWith('PRD-20261121-greeting.md')), 'the other fixture PRD is listed too');
    assert.ok(!all.some((p) => p.uri.path.endsWith('/README.md')), 'markdown that is not a PRD is not');
  });

  it('verifies from the Testing view: PASS passed, FAIL failed, UNKNOWN skipped, written into the PRD', async function () {
    this.timeout(180_000);
    const demo = file(DEMO);
    await vscode.window.showTextDocument(demo);
    // The workbench learns of new test items a moment after the extension adds them: until
    // then "Run Tests in Current File" finds none. Ask again until the run has started.
    const started = /Testing view run: 7 criteria of \.ideal-state\/prds\/PRD-20261122-verify-demo\.md/;
    for (let attempt = 1; ; attempt++) {
      await vscode.commands.executeCommand('testing.runCurrentFile');
      try {
        await waitForLogLine(started, 10_000);
        break;
      } catch (error) {
        if (attempt === 6) throw error;
      }
    }
    const states = await until(async () => {
      const item = (await api.criteriaTests()).find((p) => p.uri.toString() === demo.toString());
      const s = Object.fromEntries((item?.criteria ?? []).map((c) => [c.id, c.state]));
      return Object.values(s).every(Boolean) ? s : undefined;
    }, 'a result for every demo criterion', 120_000);
    assert.deepEqual(states, {
      'ISC-DEMO-001': 'passed',
      'ISC-DEMO-002': 'passed',
      'ISC-DEMO-003': 'passed',
      'ISC-DEMO-004': 'failed',
      'ISC-DEMO-005': 'passed',
      'ISC-DEMO-006': 'skipped',
      'ISC-A-DEMO-001': 'passed',
    });
    const text = await until(async () => {
      const t = await read(demo);
      return /^- Work: Verified 7 criteria/m.test(t) ? t : undefined;
    }, 'the outcomes written into the PRD');
    assert.match(text, /^- \[x\] ISC-DEMO-001: /m);
    assert.match(text, /^- \[ \] ISC-DEMO-004: /m);
    assert.match(text, /^- \[ \] ISC-DEMO-006: /m);
    // An UNKNOWN is not a failure (issue 28): it is listed on its own line.
    assert.match(text, /^- Failing: ISC-DEMO-004$/m);
    assert.match(text, /^- Unknown: ISC-DEMO-006$/m);
  });

  it('marks a PASS and a FAIL stale when a file they covered changes', async function () {
    this.timeout(90_000);
    const demo = file(DEMO);
    const greet = file('src/greet.js');
    const original = await read(greet);
    try {
      await write(greet, `${original}\n// touched by the staleness test\n`);
      const item = await until(async () => {
        const found = (await api.criteriaTests()).find((p) => p.uri.toString() === demo.toString());
        return found?.criteria.find((c) => c.id === 'ISC-DEMO-003')?.stale ? found : undefined;
      }, 'ISC-DEMO-003 (a Grep that matched in src/greet.js) to go stale', 60_000);
      const byId = Object.fromEntries(item.criteria.map((c) => [c.id, c]));
      assert.equal(byId['ISC-DEMO-003']!.stale, 'src/greet.js changed');
      assert.equal(byId['ISC-DEMO-003']!.state, undefined, 'its result was invalidated');
      // A FAIL goes stale too (issue 28): a Task reads the whole workspace, so any change may have fixed it.
      assert.equal(byId['ISC-DEMO-004']!.stale, 'src/greet.js changed');
      assert.equal(byId['ISC-DEMO-004']!.state, undefined, 'the FAIL was invalidated, not shown as current');
    } finally {
      await write(greet, original);
    }
  });
});
