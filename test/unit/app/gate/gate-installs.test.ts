import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { lockCriteria } from '../../../../src/app/gate';
import { installingChecks, installsDependencies } from '../../../../src/app/gate/check-installs';
import { freezeWorkspace } from '../../../../src/app/gate/frozen';
import { claudeStop, decision, runGate, stateDir } from '../../support/gate-lock-helpers';

/**
 * A locked check that installs dependencies (`npm ci && node check.js`) rewrites node_modules
 * through the snapshot's link to the live folder. That is the check's own doing, not an agent's
 * watcher: the honest agent is not blocked as "changed while the gate verified it", and the answer
 * says node_modules was not guarded. Where no locked check installs, the folder stays guarded and
 * a rewrite meanwhile still blocks.
 */

const PRD = '.ideal-state/prds/PRD-20261129-install.md';

function write(dir: string, relative: string, text: string, mode?: number): void {
  const file = path.join(dir, relative);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text, mode === undefined ? undefined : { mode });
}

/** A project with no dependencies whose node_modules holds a shim the lockfile does not name: `npm ci` removes it. */
function installProject(command: string): string {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-install-'));
  write(ws, 'package.json', JSON.stringify({ name: 'p', version: '1.0.0' }));
  write(ws, 'package-lock.json', JSON.stringify({ name: 'p', version: '1.0.0', lockfileVersion: 3, requires: true, packages: { '': { name: 'p', version: '1.0.0' } } }));
  write(ws, '.gitignore', 'node_modules/\n');
  write(ws, 'node_modules/checker/cli.js', '#!/usr/bin/env node\nprocess.exit(0);\n', 0o755);
  fs.mkdirSync(path.join(ws, 'node_modules', '.bin'));
  fs.symlinkSync('../checker/cli.js', path.join(ws, 'node_modules', '.bin', 'checker'));
  write(ws, 'check.js', "process.exit(require('fs').existsSync('done.txt') ? 0 : 1);\n");
  write(ws, 'done.txt', 'the work\n');
  write(ws, '.ideal-state/verify-commands.yaml', `commands:\n  - ${JSON.stringify(command)}\n`);
  write(ws, PRD, ['---', 'prd: true', 'id: PRD-20261129-install', 'status: IN_PROGRESS', '---', '', '# Install', '', '## Ideal State Criteria', '', `- [ ] ISC-1: The project installs from its lockfile and its check passes | Verify: CLI: ${command}`, ''].join('\n'));
  return ws;
}

const linux = process.platform === 'linux';

describe('a locked check that installs dependencies is not blocked for rewriting node_modules', function () {
  this.timeout(120_000);

  it('tells an installing command from one that is not', () => {
    for (const c of ['npm ci && npm test', 'npm ci --offline && node check.js', 'CI=1 npm install', 'cd app; npm i', 'pnpm install --frozen-lockfile && pnpm test', 'yarn && yarn test', 'yarn install', 'bun install', 'npm clean-install'])
      assert.equal(installsDependencies(c), true, c);
    for (const c of ['npm test', 'npm run ci', 'npx checker', 'echo npm ci', 'node install.js', 'yarn test', 'pnpm run install-deps', 'make check'])
      assert.equal(installsDependencies(c), false, c);
    assert.deepEqual(installingChecks(['CLI: npm ci && npm test', 'CLI: npm test', null, 'Grep: npm ci | expect: none', 'Test: npm ci && npm test']), ['npm ci && npm test']);
  });

  it('freezeWorkspace: node_modules rewritten during the checks counts unless a locked check installs, and then the note says it was not guarded', async () => {
    const ws = installProject('npm ci && node check.js');
    const rewrite = () => write(ws, 'node_modules/checker/cli.js', 'process.exit(1);\n');
    const guarded = await freezeWorkspace(ws, { sinceMs: Date.now(), log: () => undefined, executed: ['node_modules/.bin/checker'] });
    rewrite();
    const changed = await guarded.changes();
    await guarded.dispose();
    assert.ok(changed.some((c) => c.includes('node_modules/checker/cli.js')), changed.join('\n'));
    assert.equal(guarded.note, undefined);

    const logged: string[] = [];
    const installing = await freezeWorkspace(ws, { sinceMs: Date.now(), log: (s) => logged.push(s), executed: ['node_modules/.bin/checker'], installing: ['npm ci && node check.js'] });
    write(ws, 'node_modules/checker/cli.js', 'process.exit(2);\n');
    fs.unlinkSync(path.join(ws, 'node_modules', '.bin', 'checker'));
    const unchanged = await installing.changes();
    await installing.dispose();
    assert.deepEqual(unchanged, []);
    assert.match(installing.note ?? '', /node_modules was not guarded .*`npm ci && node check\.js` installs dependencies/);
    assert.deepEqual(logged, [installing.note]);
  });

  (linux ? it : it.skip)('the gate: a locked `npm ci && node check.js` that empties node_modules lets the honest agent through, and says node_modules was not guarded', async () => {
    const command = 'npm ci --offline --no-audit --no-fund && node check.js';
    const ws = installProject(command);
    const state = stateDir();
    const locked = await lockCriteria(ws, { files: [PRD], by: 'ana', how: 'terminal', now: new Date(), env: { ...process.env, IDEAL_STATE_STATE_DIR: state } });
    assert.deepEqual(locked.refused, []);
    const run = await runGate(['--host', 'claude-code', '--workspace', ws, '--no-store', '--deadline', '60'], claudeStop(ws), { state });
    const d = decision(run);
    assert.equal(d.blocked, false, `an honest install was blocked: ${d.text}\n${run.err}`);
    assert.ok(!fs.existsSync(path.join(ws, 'node_modules', '.bin', 'checker')), 'the check did install into the live node_modules');
    assert.match(`${d.text}\n${run.err}`, /node_modules was not guarded/);
    // The PRD's LOG says how this stop was verified, beside its verdict.
    assert.match(fs.readFileSync(path.join(ws, PRD), 'utf8'), /ideal-state gate \(Claude Code Stop, .*let the stop through.*\(.*node_modules was not guarded/);
  });
});
