import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { deniedCommands, deniedCommandsFile } from '../../../src/app/denied-commands';
import { pendingProposals, proposedCommands } from '../../../src/app/proposals';

/**
 * The records of the state folder (denied commands, pending proposals, proposed commands) are
 * read one way: a missing file is an empty record, and a file an agent or a crash spoiled is a
 * specific error naming the file and what to do, never "nothing recorded" (which would let a
 * denied or unapproved command run).
 */
describe('the state folder records', () => {
  let state: string;
  let workspace: string;
  let env: NodeJS.ProcessEnv;

  beforeEach(() => {
    state = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-record-state-'));
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-record-ws-'));
    env = { ...process.env, IDEAL_STATE_STATE_DIR: state };
  });
  afterEach(() => {
    fs.rmSync(state, { recursive: true, force: true });
    fs.rmSync(workspace, { recursive: true, force: true });
  });

  it('a missing record is empty', async () => {
    assert.equal((await deniedCommands(workspace, env)).size, 0);
    assert.deepEqual(await pendingProposals(workspace, env), []);
    assert.deepEqual(await proposedCommands(workspace, env), []);
  });

  it('a spoiled denied-commands record is an error by code that names the file, never an empty record', async () => {
    const file = await deniedCommandsFile(workspace, env);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '{"version":1,"commands":[');
    await assert.rejects(deniedCommands(workspace, env), (e: Error & { code?: string }) => e.code === 'denied-commands-state' && e.message.includes(file) && /not JSON.*move it aside/.test(e.message));
    fs.writeFileSync(file, JSON.stringify({ version: 1, commands: [{ digest: 'nope', command: 'x', deniedAt: 'now' }] }));
    await assert.rejects(deniedCommands(workspace, env), (e: Error & { code?: string }) => e.code === 'denied-commands-state' && /not a record Ideal State wrote/.test(e.message));
  });

  it('a spoiled proposals record is an error by code, never an empty list', async () => {
    const folder = path.dirname(await deniedCommandsFile(workspace, env));
    fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(folder, 'pending-proposals.json'), JSON.stringify({ version: 2, proposals: [] }));
    await assert.rejects(pendingProposals(workspace, env), (e: Error & { code?: string }) => e.code === 'proposal-state' && /pending-proposals\.json is not a record Ideal State wrote/.test(e.message));
    fs.writeFileSync(path.join(folder, 'proposed-commands.json'), 'not json');
    await assert.rejects(proposedCommands(workspace, env), (e: Error & { code?: string }) => e.code === 'proposal-state' && /proposed-commands\.json is not JSON/.test(e.message));
  });

  it('a FIFO in place of a record is an error at once, never a read that waits for a writer', async function () {
    this.timeout(10_000);
    const file = await deniedCommandsFile(workspace, env);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    execFileSync('mkfifo', [file]);
    await assert.rejects(deniedCommands(workspace, env), (e: Error & { code?: string }) => e.code === 'denied-commands-state' && e.message.includes(file) && /not a regular file \(a FIFO\).*move it aside/.test(e.message));
  });
});
