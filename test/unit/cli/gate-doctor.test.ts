import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { wouldBlock } from '../../../src/app/gate/doctor/dry-stop';
import { gateDoctorCommand } from '../../../src/cli/gate/doctor';
import { gateInstallCommand } from '../../../src/cli/gate/install';
import { BUILT_CLI } from '../support/cli-helpers';

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (s: string) => out.push(s), err: (s: string) => err.push(s) }, out, err };
}

describe('command line: gate doctor (a dry stop through each installed hook)', function () {
  this.timeout(120_000);

  it('reads each host’s answer the way the host does', () => {
    assert.equal(wouldBlock('vscode', 0, '{"hookSpecificOutput":{"hookEventName":"Stop","decision":"block","reason":"r"}}').block, true);
    assert.equal(wouldBlock('vscode', 0, '{"decision":"block","reason":"r"}').block, false, 'VS Code reads the nested decision on Stop');
    assert.equal(wouldBlock('cursor', 0, '{"followup_message":"r"}').block, true);
    assert.equal(wouldBlock('kiro', 1, '').block, true);
    assert.equal(wouldBlock('claude-code', 0, '').block, false);
  });

  it('runs the exact installed command lines with each host’s payload shape: would block while ISC-1 fails, would let go once it passes; writes nothing', async () => {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-gate-doctor-'));
    fs.mkdirSync(path.join(ws, '.ideal-state', 'prds'), { recursive: true });
    const prd = path.join(ws, '.ideal-state', 'prds', 'PRD-20261126-doctor.md');
    const text = ['---', 'prd: true', 'id: PRD-20261126-doctor', 'status: IN_PROGRESS', 'effort_level: INSTANT', '---', '', '# Doctor', '', '## Ideal State Criteria', '- [ ] ISC-1: The workspace has a CHANGELOG.md | Verify: Read: CHANGELOG.md', '', '## LOG', ''].join('\n');
    fs.writeFileSync(prd, text);
    const launcher = `${JSON.stringify(process.execPath)} ${JSON.stringify(BUILT_CLI)}`;
    for (const host of ['claude-code', 'codex', 'gemini', 'vscode', 'copilot', 'cursor', 'kiro']) {
      const r = io();
      assert.equal(await gateInstallCommand([host, '--yes', '--no-mcp', '--workspace', ws, '--command', launcher], r.io), 0, r.err.join('\n'));
    }
    const before = io();
    assert.equal(await gateDoctorCommand(['--workspace', ws], before.io), 0, before.err.join('\n'));
    const text1 = before.out.join('\n');
    for (const name of ['Claude Code', 'Codex', 'Gemini CLI', 'VS Code', 'Copilot CLI', 'Cursor', 'Kiro']) assert.match(text1, new RegExp(`^${name}: would block `, 'm'), `${name}\n${text1}`);
    assert.match(text1, /^Cline: no stop gate possible/m);
    assert.match(text1, /^The gate holds:\n {2}\.ideal-state\/prds\/PRD-20261126-doctor\.md \(the newest unfinished PRD with criteria \(no lock, no session baseline\)\)$/m, 'the doctor names what is held and why');
    assert.equal(fs.readFileSync(prd, 'utf8'), text, 'a dry stop writes nothing into the PRD');

    fs.writeFileSync(path.join(ws, 'CHANGELOG.md'), '# Changelog\n');
    const after = io();
    await gateDoctorCommand(['--workspace', ws], after.io);
    assert.match(after.out.join('\n'), /^Claude Code: would let the agent stop/m);
    assert.doesNotMatch(after.out.join('\n'), /would block/);
  });

  it('says so when no host runs the gate', async () => {
    const r = io();
    assert.equal(await gateDoctorCommand(['--workspace', fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-gate-doctor-'))], r.io), 1);
    assert.match(r.err.join('\n'), /no host in .* runs the gate/);
  });
});
