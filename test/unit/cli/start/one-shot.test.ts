import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cachedDataVersionTag } from 'node:v8';
import { REPO_ROOT } from '../../support/repo-root';

/**
 * A one-shot command (src/cli/start/one-shot.ts) runs zod without its JIT and compiles the store's
 * SQLite with V8's baseline tier only, and sets no V8 flag before that: a flag set at the start
 * would make V8 refuse the code cache of every Node module loaded after it (issue 26). What the
 * process ran with is read at its exit: zod's shared config, and V8's code-cache tag, which
 * changes with the flags in force.
 */
const ROOT = REPO_ROOT;
const BIN = path.join(ROOT, 'dist', 'cli.js');

function runWithProbe(args: string[], prepare?: (dir: string) => void): { status: number | null; jitless: boolean; tag: number; workers: boolean; perfHooks: boolean; stdout: string; stderr: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'one-shot-'));
  const probe = path.join(dir, 'probe.cjs');
  prepare?.(dir);
  fs.writeFileSync(probe, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(path.join(dir, 'seen.json'))}, JSON.stringify({ jitless: globalThis.__zod_globalConfig?.jitless === true, tag: require('node:v8').cachedDataVersionTag(), workers: process.moduleLoadList.includes('NativeModule worker_threads'), perfHooks: process.moduleLoadList.includes('NativeModule perf_hooks') })));\n`);
  const r = spawnSync(process.execPath, ['-r', probe, BIN, ...args.map((a) => a.replace('$DIR', dir))], { encoding: 'utf8', env: { ...process.env, IDEAL_STATE_CACHE_DIR: dir } });
  const seen = JSON.parse(fs.readFileSync(path.join(dir, 'seen.json'), 'utf8')) as { jitless: boolean; tag: number; workers: boolean; perfHooks: boolean };
  fs.rmSync(dir, { recursive: true, force: true });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, ...seen };
}

describe('command line: a one-shot process (issue 26)', () => {
  for (const command of ['gate', 'verify']) {
    it(`ideal-state ${command} (the lean file) parses without zod's JIT and sets no V8 flag`, () => {
      const r = runWithProbe([command, '--help']);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.jitless, true);
      assert.equal(r.tag, cachedDataVersionTag(), 'the V8 flags are those Node started with');
    });
  }

  it('a one-shot command that opens the store sets the baseline-only flag, when its SQLite compiles', () => {
    const r = runWithProbe(['store', 'info', '--store', '$DIR/store.sqlite']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.jitless, true);
    assert.notEqual(r.tag, cachedDataVersionTag(), 'the flags changed: --liftoff-only was set for the WASM');
  });

  it('one that does not open the store sets no flag either', () => {
    const r = runWithProbe(['isc', 'list']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.jitless, true);
    assert.equal(r.tag, cachedDataVersionTag());
  });

  /** A workspace whose PRD has `count` READ criteria; the last one fails when `failing`. */
  const readsWorkspace = (count: number, failing: boolean) => (dir: string) => {
    fs.mkdirSync(path.join(dir, 'ws'));
    fs.writeFileSync(path.join(dir, 'ws', 'README.md'), '# App\n\n## Install\n');
    const lines = Array.from({ length: count }, (_, i) => `- [ ] ISC-${i + 1}: The readme names its install section, check number ${i + 1} | Verify: Read: README.md | contains: ${failing && i === count - 1 ? 'Uninstall' : 'Install'}`);
    fs.writeFileSync(path.join(dir, 'ws', 'PRD.md'), `---\nprd: true\nid: PRD-20261127-one-shot\nstatus: IN_PROGRESS\neffort_level: STANDARD\n---\n\n# One shot\n\n## Ideal State Criteria\n${lines.join('\n')}\n`);
  };

  it('verify ends with its answer whole and its exit code, without Node\'s teardown; the JS search\'s worker threads are not loaded for criteria that do not search, nor perf_hooks to time them', () => {
    for (const failing of [false, true]) {
      const r = runWithProbe(['verify', '$DIR/ws/PRD.md', '--json', '--workspace', '$DIR/ws', '--no-store'], readsWorkspace(200, failing));
      assert.equal(r.status, failing ? 1 : 0, r.stderr);
      const answer = JSON.parse(r.stdout) as { passed: boolean; results: { outcome: string }[] };
      assert.equal(answer.results.length, 200, 'every result was written before the process ended');
      assert.equal(answer.passed, !failing);
      assert.equal(r.workers, false, 'node:worker_threads was loaded');
      assert.equal(r.perfHooks, false, 'node:perf_hooks was loaded (the global performance)');
    }
  });

  it('the long-lived MCP server keeps zod\'s JIT', () => {
    const r = runWithProbe(['mcp', '--help']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.jitless, false);
  });
});
