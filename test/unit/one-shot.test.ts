import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cachedDataVersionTag } from 'node:v8';

/**
 * A one-shot command (src/cli/one-shot.ts) runs zod without its JIT and compiles the store's
 * SQLite with V8's baseline tier only, and sets no V8 flag before that: a flag set at the start
 * would make V8 refuse the code cache of every Node module loaded after it (issue 26). What the
 * process ran with is read at its exit: zod's shared config, and V8's code-cache tag, which
 * changes with the flags in force.
 */
const ROOT = path.resolve(__dirname, '../../..');
const BIN = path.join(ROOT, 'dist', 'cli.js');

function runWithProbe(args: string[]): { status: number | null; jitless: boolean; tag: number; stderr: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'one-shot-'));
  const probe = path.join(dir, 'probe.cjs');
  fs.writeFileSync(probe, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(path.join(dir, 'seen.json'))}, JSON.stringify({ jitless: globalThis.__zod_globalConfig?.jitless === true, tag: require('node:v8').cachedDataVersionTag() })));\n`);
  const r = spawnSync(process.execPath, ['-r', probe, BIN, ...args.map((a) => a.replace('$DIR', dir))], { encoding: 'utf8', env: { ...process.env, IDEAL_STATE_CACHE_DIR: dir } });
  const seen = JSON.parse(fs.readFileSync(path.join(dir, 'seen.json'), 'utf8')) as { jitless: boolean; tag: number };
  fs.rmSync(dir, { recursive: true, force: true });
  return { status: r.status, stderr: r.stderr, ...seen };
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

  it('the long-lived MCP server keeps zod\'s JIT', () => {
    const r = runWithProbe(['mcp', '--help']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.jitless, false);
  });
});
