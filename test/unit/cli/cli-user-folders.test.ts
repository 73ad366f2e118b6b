import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gateStateFolder } from '../../../src/app/gate/state-folder';
import { defaultCliStoreFile } from '../../../src/store/store-paths';
import { runCli } from '../support/cli-helpers';

/**
 * The command lines the unit tests start keep their records in folders of the test's own: a
 * developer's `~/.local/state/ideal-state` (the gate's block counter, commands denied "always")
 * must neither change what a test sees nor be changed by it.
 */
describe("command lines in tests: never the user's own state or data folder", () => {
  it("a gate started through runCli counts its blocks in a state folder of the test's own, and keeps its report out of the user's data folder", async () => {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-user-folders-'));
    fs.mkdirSync(path.join(ws, '.ideal-state', 'prds'), { recursive: true });
    fs.writeFileSync(
      path.join(ws, '.ideal-state', 'prds', 'PRD-20261128-folders.md'),
      ['---', 'prd: true', 'id: PRD-20261128-folders', 'status: IN_PROGRESS', 'effort_level: INSTANT', '---', '', '# Folders', '', '## Ideal State Criteria', '- [ ] ISC-1: A changelog exists | Verify: Read: CHANGELOG.md', ''].join('\n'),
    );
    const userState = await gateStateFolder(ws, process.env);
    const userStore = path.dirname(defaultCliStoreFile(ws, process.env));

    // What Claude Code sends a Stop hook (https://code.claude.com/docs/en/hooks#stop-input).
    const stop = JSON.stringify({ session_id: 'folders', transcript_path: path.join(ws, 'transcript.jsonl'), cwd: ws, hook_event_name: 'Stop', stop_hook_active: false });
    const first = await runCli(['gate', '--host', 'claude-code', '--workspace', ws], { input: stop });
    assert.match(first.out, /block 1 of 3/, `${first.out}\n${first.err}`);
    // The test's folder holds the count: the second stop in a row is the second block.
    // Claude Code says a stop follows a block (stop_hook_active) in the same session.
    const second = await runCli(['gate', '--host', 'claude-code', '--workspace', ws], { input: JSON.stringify({ ...JSON.parse(stop), stop_hook_active: true }) });
    assert.match(second.out, /block 2 of 3/, `${second.code} ${second.out}\n${second.err}`);
    assert.equal(fs.existsSync(userState), false, `the gate wrote into the user's state folder: ${userState}`);
    assert.equal(fs.existsSync(userStore), false, `the gate wrote into the user's data folder: ${userStore}`);
  });
});
