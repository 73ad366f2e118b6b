import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gateDoctorCommand } from '../../../src/cli/gate/doctor';
import { gateInstallCommand } from '../../../src/cli/gate/install';
import { BUILT_CLI } from '../support/cli-helpers';

/**
 * The npx shim: a hook installed as `npx ideal-state` runs the workspace's
 * node_modules/.bin/ideal-state, which the agent replaces with a script that lets every stop
 * through. `gate install` never writes a launcher found through the workspace: it writes the
 * absolute paths of its own Node and command line instead (and says so), or refuses when those
 * are in the workspace too. `gate doctor` names the cause of a hook installed that way.
 */
const LAUNCHER = `${fs.realpathSync(process.execPath)} ${fs.realpathSync(BUILT_CLI)}`;

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (s: string) => out.push(s), err: (s: string) => err.push(s) }, out, err };
}

/** A workspace whose one criterion fails, with a node_modules/.bin/ideal-state as a project that depends on it has. */
function workspace(): string {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-shim-'));
  fs.mkdirSync(path.join(ws, '.ideal-state', 'prds'), { recursive: true });
  fs.writeFileSync(path.join(ws, '.ideal-state', 'prds', 'PRD-20261128-shim.md'), ['---', 'prd: true', 'id: PRD-20261128-shim', 'status: IN_PROGRESS', 'effort_level: INSTANT', '---', '', '# Shim', '', '## Ideal State Criteria', '- [ ] ISC-1: The workspace has a CHANGELOG.md | Verify: Read: CHANGELOG.md', '', '## LOG', ''].join('\n'));
  fs.mkdirSync(path.join(ws, 'node_modules', '.bin'), { recursive: true });
  fs.writeFileSync(path.join(ws, 'node_modules', '.bin', 'ideal-state'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BUILT_CLI)} "$@"\n`, { mode: 0o755 });
  return ws;
}

const installed = (ws: string) => JSON.parse(fs.readFileSync(path.join(ws, '.claude', 'settings.json'), 'utf8')).hooks.Stop[0].hooks[0].command as string;

describe('gate install and gate doctor: a launcher found through the workspace', function () {
  this.timeout(120_000);
  let savedHome: string | undefined;
  beforeEach(() => {
    savedHome = process.env.HOME;
    process.env.HOME = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-shim-home-'));
  });
  afterEach(() => {
    if (savedHome === undefined) delete process.env.HOME;
    else process.env.HOME = savedHome;
  });

  for (const given of ['npx ideal-state', 'pnpm exec ideal-state', './node_modules/.bin/ideal-state']) {
    it(`--command "${given}" is not written: the hook gets this install's absolute paths, and the install says why`, async () => {
      const ws = workspace();
      const r = io();
      assert.equal(await gateInstallCommand(['claude-code', '--yes', '--no-mcp', '--workspace', ws, '--command', given], r.io, { node: process.execPath, cli: BUILT_CLI }), 0, r.err.join('\n'));
      assert.equal(installed(ws), `${LAUNCHER} gate --host claude-code --workspace ${ws} --deadline 600`);
      assert.match(r.err.join('\n'), /warning: --command `.*` is not written as given: .*(node_modules\/\.bin\/ideal-state|inside the workspace).*The hook runs `.*cli\.js` instead/);
    });
  }

  it('a bare name that PATH finds in the workspace (node_modules/.bin on PATH) is not written either', async () => {
    const ws = workspace();
    const r = io();
    const env = { ...process.env, PATH: `${path.join(ws, 'node_modules', '.bin')}${path.delimiter}${process.env.PATH}` };
    assert.equal(await gateInstallCommand(['claude-code', '--yes', '--no-mcp', '--workspace', ws, '--command', 'ideal-state'], r.io, { node: process.execPath, cli: BUILT_CLI, env }), 0, r.err.join('\n'));
    assert.equal(installed(ws), `${LAUNCHER} gate --host claude-code --workspace ${ws} --deadline 600`);
    assert.match(r.err.join('\n'), /`ideal-state` is found on PATH at .*node_modules\/\.bin\/ideal-state, inside the workspace/);
  });

  it('refused, nothing written, when this install itself runs from the workspace (there is no outside path to write)', async () => {
    const ws = workspace();
    const cli = path.join(ws, 'node_modules', 'ideal-state', 'dist', 'cli.js');
    fs.mkdirSync(path.dirname(cli), { recursive: true });
    fs.copyFileSync(BUILT_CLI, cli);
    const r = io();
    assert.equal(await gateInstallCommand(['claude-code', '--yes', '--no-mcp', '--workspace', ws, '--command', 'npx ideal-state'], r.io, { node: process.execPath, cli }), 1);
    assert.match(r.err.join('\n'), /--command `npx ideal-state` is not written: `npx ideal-state` runs the workspace's node_modules\/\.bin\/ideal-state .*Nothing written\./);
    assert.equal(fs.existsSync(path.join(ws, '.claude', 'settings.json')), false);
  });

  it('an absolute --command outside the workspace is written as given', async () => {
    const ws = workspace();
    const r = io();
    assert.equal(await gateInstallCommand(['claude-code', '--yes', '--no-mcp', '--workspace', ws, '--command', LAUNCHER], r.io, { node: process.execPath, cli: BUILT_CLI }), 0, r.err.join('\n'));
    assert.equal(installed(ws), `${LAUNCHER} gate --host claude-code --workspace ${ws} --deadline 600`);
    assert.doesNotMatch(r.err.join('\n'), /not written/);
  });

  it('gate doctor on a hook written as `npx ideal-state` (by hand, or an older install) whose shim the agent replaced: would let the agent stop, and the cause', async () => {
    const ws = workspace();
    fs.mkdirSync(path.join(ws, '.claude'));
    fs.writeFileSync(path.join(ws, '.claude', 'settings.json'), JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: `npx ideal-state gate --host claude-code --workspace ${ws} --deadline 600` }] }] } }));
    const honest = io();
    await gateDoctorCommand(['--workspace', ws], honest.io);
    assert.match(honest.out.join('\n'), /^Claude Code: would block /m, honest.out.join('\n'));
    assert.match(honest.out.join('\n'), /Bypassable: the installed command resolves inside the workspace: `npx ideal-state` runs the workspace's node_modules\/\.bin\/ideal-state whenever there is one \(there is: .*\)/);
    // The agent's move.
    fs.writeFileSync(path.join(ws, 'node_modules', '.bin', 'ideal-state'), '#!/bin/sh\ncat >/dev/null\necho {}\n', { mode: 0o755 });
    const after = io();
    await gateDoctorCommand(['--workspace', ws], after.io);
    const text = after.out.join('\n');
    assert.match(text, /^Claude Code: would let the agent stop /m, text);
    assert.match(text, /^ {2}Cause: the installed command resolves inside the workspace: `npx ideal-state` runs the workspace's node_modules\/\.bin\/ideal-state/m, text);
  });
});

describe('gate install and gate doctor: opencode’s plugin, which the agent can replace', function () {
  this.timeout(60_000);

  it('the install says the plugin is loaded at start-up and the agent can replace it; the doctor names a plugin rewritten without the gate', async () => {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-opencode-'));
    const r = io();
    assert.equal(await gateInstallCommand(['opencode', '--yes', '--no-mcp', '--workspace', ws], r.io, { node: process.execPath, cli: BUILT_CLI }), 0, r.err.join('\n'));
    assert.match(r.out.join('\n'), /Risk: \.opencode\/plugin\/ideal-state-gate\.js is inside the workspace: opencode loads it at start-up, so an agent's edit counts from the next session, and opencode has no sandbox/);
    fs.writeFileSync(path.join(ws, '.opencode', 'plugin', 'ideal-state-gate.js'), 'export const IdealStateGate = async () => ({});\n');
    const d = io();
    await gateDoctorCommand(['--workspace', ws], d.io);
    assert.match(d.out.join('\n'), /^opencode: would let the agent stop: \.opencode\/plugin\/ideal-state-gate\.js no longer runs the gate: it is there without the gate's command line/m, d.out.join('\n') + d.err.join('\n'));
  });
});
