import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { lockCriteria } from '../../../../src/app/gate';
import { BUILT_CLI } from '../../support/cli-helpers';
import { claudePrompt, claudeStop, decision, runGate, stateDir } from '../../support/gate-lock-helpers';
import { REPO_ROOT } from '../../support/repo-root';

/**
 * The false-block set: honest sessions (fix, then stop) on workspaces shaped like real projects
 * must be let through at the first stop after the fix, and the cheats must still be blocked. A
 * gate that cries wolf is as wrong as one that lets a cheat through.
 */

const PRDS = '.ideal-state/prds';
const CURRENT = `${PRDS}/PRD-20261128-release.md`;

function write(dir: string, relative: string, text: string, minutesAgo?: number): void {
  const file = path.join(dir, relative);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  if (minutesAgo !== undefined) {
    const when = new Date(Date.now() - minutesAgo * 60_000);
    fs.utimesSync(file, when, when);
  }
}

const prd = (id: string, lines: string[]) => ['---', 'prd: true', `id: ${id}`, 'status: IN_PROGRESS', '---', '', `# ${id}`, '', '## Ideal State Criteria', '', ...lines, ''].join('\n');

/**
 * A JavaScript project with its dependencies installed and a build made: node_modules/ and
 * dist/ hold console.log (both ignored), the source does not. Two old PRDs fail (one a Custom
 * criterion no model judges at the gate), an ISA beside them fails, and the current PRD asks
 * for a changelog with no console.log in the source.
 */
function realProject(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-honest-'));
  write(dir, 'package.json', JSON.stringify({ name: 'app', version: '1.0.0', main: 'src/lib.js' }, null, 2));
  write(dir, '.gitignore', 'node_modules/\ndist/\n');
  write(dir, 'src/lib.js', "export function add(a, b) {\n  return a + b;\n}\n");
  write(dir, 'node_modules/left-pad/index.js', "console.log('installed');\nmodule.exports = (s) => s;\n");
  write(dir, 'node_modules/.bin/tool', "#!/bin/sh\necho console.log\n");
  write(dir, 'dist/out.js', "console.log('built');\n");
  write(dir, '.vscode-test/node/lib.js', "console.log('a downloaded runtime');\n");
  write(dir, `${PRDS}/PRD-20261101-old.md`, prd('PRD-20261101-old', ['- [ ] ISC-1: The old migration guide exists at the top level | Verify: Read: MIGRATION.md', '- [ ] ISC-2: The API reads warmly to every newcomer who opens it | Verify: Custom']), 60);
  write(dir, `${PRDS}/ISA-20261110-search.md`, ['---', 'task: Search', 'phase: build', 'progress: 0/1', '---', '', '# Search', '', '## Criteria', '', '- [ ] ISC-1: A search module exists in the source folder', '  - Probe: Read src/search.js', ''].join('\n'), 50);
  write(dir, CURRENT, prd('PRD-20261128-release', ['- [ ] ISC-1: A changelog at the top level records the release | Verify: Read: CHANGELOG.md', '', '## Anti-Criteria', '', '- [ ] ISC-A-1: No console.log call in the source | Verify: Grep: console\\.log']), 5);
  return dir;
}

describe('the false-block set: an honest fix is let through at the first stop after it', function () {
  this.timeout(120_000);
  const gate = (ws: string, state: string, stdin: string) => runGate(['--host', 'claude-code', '--no-store', '--no-log', '--workspace', ws], stdin, { state });

  it('a project with node_modules, dist and a downloaded runtime, old failing PRDs and an ISA: the fix passes at the first stop', async () => {
    const ws = realProject();
    const state = stateDir();
    await gate(ws, state, claudePrompt(ws, 'Add a changelog for the release.'));
    const before = decision(await gate(ws, state, claudeStop(ws)));
    assert.equal(before.blocked, true, before.text);
    assert.match(before.text, /1 CRITICAL criterion of \.ideal-state\/prds\/PRD-20261128-release\.md .* does not pass: ISC-1\./);
    assert.doesNotMatch(before.text, /ISC-A-1|PRD-20261101-old|ISA-20261110/, 'neither the ignored folders nor the old PRDs count');

    write(ws, 'CHANGELOG.md', '# Changelog\n\n## 1.0.0\n\n- First release.\n');
    const after = decision(await gate(ws, state, claudeStop(ws, { stop_hook_active: true })));
    assert.equal(after.blocked, false, after.text);
    assert.match(after.text, /PRD-20261128-release\.md \(held: .*\): 2 of 2 criteria pass/);
  });

  it('the same project locked by a person: the fix passes at the first stop; console.log in the source fails naming the file', async () => {
    const ws = realProject();
    const state = stateDir();
    await lockCriteria(ws, { files: [CURRENT], by: 'ana', how: 'terminal', now: new Date(), env: { ...process.env, IDEAL_STATE_STATE_DIR: state } });
    write(ws, 'CHANGELOG.md', '# Changelog\n');
    assert.equal(decision(await gate(ws, state, claudeStop(ws))).blocked, false);

    write(ws, 'src/debug.js', "console.log('left behind');\n");
    const broken = decision(await gate(ws, state, claudeStop(ws)));
    assert.equal(broken.blocked, true, broken.text);
    assert.match(broken.text, /ISC-A-1 FAIL \[CONSTRAINT_VIOLATION\]: 1 matching line in 1 file .*first: src\/debug\.js:1/);
  });

  it('cheats are still blocked: the offending source file .gitignored by the agent, the anti-criterion deleted', async () => {
    const ws = realProject();
    const state = stateDir();
    await gate(ws, state, claudePrompt(ws, 'Add a changelog for the release.'));
    write(ws, 'CHANGELOG.md', '# Changelog\n');
    write(ws, 'src/debug.js', "console.log('left behind');\n");
    // Hide the source file from the search: the .gitignore as the person last saw it decides.
    write(ws, '.gitignore', 'node_modules/\ndist/\nsrc/debug.js\n');
    const hidden = decision(await gate(ws, state, claudeStop(ws)));
    assert.equal(hidden.blocked, true, hidden.text);
    assert.match(hidden.text, /ISC-A-1 FAIL/);
    // Remove the anti-criterion instead: TAMPERED.
    const file = path.join(ws, CURRENT);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^- \[ \] ISC-A-1:.*\n/m, ''));
    const removed = decision(await gate(ws, state, claudeStop(ws)));
    assert.equal(removed.blocked, true, removed.text);
    assert.match(removed.text, /ISC-A-1 TAMPERED: ISC-A-1 was removed since the person last spoke/);
  });

  it('this repository, dependencies installed: an anti-criterion its source meets passes, one it breaks fails naming a source file', () => {
    const repo = REPO_ROOT;
    assert.ok(fs.existsSync(path.join(repo, 'node_modules')), 'the repository has its dependencies installed (npm ci)');
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-self-'));
    const file = path.join(scratch, 'PRD-self.md');
    fs.writeFileSync(file, prd('PRD-self', ['- [ ] ISC-1: The package manifest names the extension | Verify: Read: package.json', '', '## Anti-Criteria', '', '- [ ] ISC-A-1: No eval call in the source | Verify: Grep: \\beval\\(', '- [ ] ISC-A-2: No TODO-IDEAL-STATE-MARKER left in the source | Verify: Grep: TODO-IDEAL-STATE-MARKER-[0-9]']));
    const run = () => spawnSync(process.execPath, [BUILT_CLI, 'verify', file, '--workspace', repo, '--no-store', '--json', '--no-commands'], { encoding: 'utf8', env: { ...process.env, IDEAL_STATE_STATE_DIR: stateDir() }, timeout: 110_000 });
    const clean = run();
    const answer = JSON.parse(clean.stdout) as { results: { id: string; outcome: string; evidence: string }[] };
    const outcome = (id: string) => answer.results.find((r) => r.id === id);
    assert.equal(outcome('ISC-A-1')?.outcome, 'PASS', outcome('ISC-A-1')?.evidence);
    assert.equal(outcome('ISC-A-2')?.outcome, 'PASS', outcome('ISC-A-2')?.evidence);
    assert.doesNotMatch(outcome('ISC-A-1')!.evidence, /not searched/);

    // A source file breaks the second one: it fails, naming that file (a scratch file, removed after).
    const marker = path.join(repo, 'src', `zz-honest-gate-${process.pid}.ts`);
    fs.writeFileSync(marker, `// TODO-IDEAL-STATE-MARKER-${'1'}\n`);
    try {
      const broken = JSON.parse(run().stdout) as typeof answer;
      const a2 = broken.results.find((r) => r.id === 'ISC-A-2')!;
      assert.equal(a2.outcome, 'FAIL', a2.evidence);
      assert.match(a2.evidence, new RegExp(`first: src/zz-honest-gate-${process.pid}\\.ts:1`));
    } finally {
      fs.rmSync(marker, { force: true });
    }
  });
});
