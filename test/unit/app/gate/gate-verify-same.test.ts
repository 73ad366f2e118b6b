import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BUILT_CLI } from '../../support/cli-helpers';
import { claudeStop, runGate, stateDir } from '../../support/gate-lock-helpers';

/**
 * A check that can tell the stop gate from a plain `ideal-state verify` (or the MCP server's
 * verify tool, which an agent calls before it stops) can pass under one and fail under the other.
 * All three run the checks in a snapshot of the workspace, at the same kind of
 * path, from the same kind of detached process host: the check's working folder, its
 * environment's names and its ancestors' command lines have the same shape under both.
 */

const PRD = '.ideal-state/prds/PRD-20261129-probe.md';

interface Seen {
  cwd: string;
  env: string[];
  ancestors: string[];
}

/** A workspace whose one check records what it can see of where it runs into `out` (outside the workspace, named in the script: not in the environment). */
function probeProject(out: string): string {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-probe-'));
  fs.mkdirSync(path.join(ws, '.ideal-state', 'prds'), { recursive: true });
  fs.writeFileSync(path.join(ws, '.gitignore'), 'node_modules/\n');
  // The MCP server runs only the commands the workspace's allow-list names (it has no terminal to ask).
  fs.writeFileSync(path.join(ws, '.ideal-state', 'verify-commands.yaml'), 'commands:\n  - node probe.js\n');
  fs.writeFileSync(
    path.join(ws, 'probe.js'),
    `const fs = require('fs');
const ancestors = [];
for (let pid = process.ppid; pid > 0 && ancestors.length < 20; ) {
  let cmd = '';
  try { cmd = fs.readFileSync('/proc/' + pid + '/cmdline', 'utf8').split('\\0').join(' ').trim(); } catch { break; }
  ancestors.push(cmd);
  if (pid === 1) break;
  pid = Number(/PPid:\\s+(\\d+)/.exec(fs.readFileSync('/proc/' + pid + '/status', 'utf8'))[1]);
}
fs.writeFileSync(${JSON.stringify(out)} + '/' + Date.now() + '-' + process.pid + '.json', JSON.stringify({ cwd: process.cwd(), env: Object.keys(process.env).sort(), ancestors }));
`,
  );
  fs.writeFileSync(path.join(ws, PRD), ['---', 'prd: true', 'id: PRD-20261129-probe', 'status: IN_PROGRESS', '---', '', '# Probe', '', '## Ideal State Criteria', '', '- [ ] ISC-1: The probe script records where it runs and exits zero | Verify: CLI: node probe.js', ''].join('\n'));
  return ws;
}

function seenIn(out: string): Seen[] {
  return fs
    .readdirSync(out)
    .sort()
    .map((f) => JSON.parse(fs.readFileSync(path.join(out, f), 'utf8')) as Seen);
}

const linux = process.platform === 'linux';

describe('a check sees the same under the stop gate and under ideal-state verify', function () {
  this.timeout(60_000);

  (linux ? it : it.skip)('the same kind of snapshot path, the same environment names, the same ancestors (gate, verify, the MCP verify tool)', async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-probe-out-'));
    const ws = probeProject(out);
    const state = stateDir();
    const gate = await runGate(['--workspace', ws, '--yes', '--no-store', '--no-log', '--deadline', '60'], claudeStop(ws), { state });
    assert.equal(gate.code, 0, gate.err);
    // As runGate starts the gate: the same environment, the same folder.
    const { CLAUDE_PROJECT_DIR: _ignored, ...inherited } = process.env;
    const verify = spawnSync(process.execPath, [BUILT_CLI, 'verify', path.join(ws, PRD), '--workspace', ws, '--yes', '--no-store', '--json'], { cwd: os.tmpdir(), env: { ...inherited, IDEAL_STATE_STATE_DIR: state }, encoding: 'utf8' });
    assert.equal(verify.status, 0, verify.stderr + verify.stdout);
    // The MCP server started as a host starts it: over stdio, with the same environment.
    const client = new Client({ name: 'ideal-state-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [BUILT_CLI, 'mcp', '--workspace', ws, '--store', path.join(state, 'store.sqlite')], stderr: 'ignore', cwd: os.tmpdir(), env: { ...(inherited as Record<string, string>), IDEAL_STATE_STATE_DIR: state } }));
    try {
      const called = (await client.callTool({ name: 'ideal-state_verify', arguments: { prd: PRD } })) as { isError?: boolean; structuredContent?: { allCriticalPass?: boolean } };
      assert.equal(called.isError, undefined, JSON.stringify(called));
      assert.equal(called.structuredContent?.allCriticalPass, true, JSON.stringify(called));
    } finally {
      await client.close();
    }
    const seen = seenIn(out);
    assert.equal(seen.length, 3, JSON.stringify(seen));
    const [underGate, underVerify, underMcp] = seen as [Seen, Seen, Seen];
    const live = fs.realpathSync(ws);
    for (const s of seen) {
      assert.notEqual(s.cwd, live, 'not the live workspace');
      assert.match(path.basename(s.cwd), /^ideal-state-snapshot-[A-Za-z0-9]{6}$/);
    }
    assert.equal(path.dirname(underGate.cwd), path.dirname(underVerify.cwd), 'the same parent folder');
    assert.deepEqual(underGate.env, underVerify.env);
    assert.deepEqual(underGate.ancestors, underVerify.ancestors);
    assert.equal(path.dirname(underMcp.cwd), path.dirname(underGate.cwd), 'the MCP tool: the same parent folder');
    assert.deepEqual(underMcp.env, underGate.env, 'the MCP tool: the same environment names');
    assert.deepEqual(underMcp.ancestors, underGate.ancestors, 'the MCP tool: the same ancestors');
    assert.ok(!underGate.ancestors.some((a) => /cli\.js (gate|verify)/.test(a)), underGate.ancestors.join('\n'));
  });
});
