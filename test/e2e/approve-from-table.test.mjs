import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO_SETTINGS } from '../harness/server.mjs';
import { useWorkbench } from './workbench-suite.mjs';

// The sample workspace's scripted demo (labelled "scripted: demo-run"), as in run.test.mjs:
// its specialist edits src/greet.js, and VERIFY runs two `node -e` commands.
const REQUEST = 'Add a farewell(name) to src/greet.js that says Goodbye and refuses an empty name';

describe('approving a run\'s edit from the ISC table, as a person does', () => {
  const workbench = useWorkbench({ trusted: true, settings: DEMO_SETTINGS });

  it('sees the pending edit in the table, opens its real diff, approves it there, and the file on disk changes', async function () {
    this.timeout(240_000);
    const page = workbench.page;
    const greet = join(workbench.workspace, 'src', 'greet.js');
    const before = readFileSync(greet, 'utf8');

    await workbench.runCommand('Ideal State: Run Algorithm at Effort…');
    await workbench.pickQuickPickItem('STANDARD');
    await workbench.typeIntoInputBox(REQUEST);
    await workbench.quickPickRow('No template').waitFor({ timeout: 15_000 });
    await workbench.pickQuickPickItem('No template');

    // The table opens beside the editor; the edit waits there with its path and changed lines.
    const table = await workbench.webview('ISC · Add a farewell', { timeoutMs: 60_000 });
    const edit = table.locator('.approval[data-kind="edit"]');
    await edit.waitFor({ timeout: 60_000 });
    assert.equal((await edit.locator('.approval-path').innerText()).trim(), 'src/greet.js');
    assert.match(await edit.locator('.approval-detail').innerText(), /\+export function farewell\(name\) \{/);
    assert.deepEqual(
      (await edit.locator('.approval-actions button').allInnerTexts()).map((t) => t.trim()),
      ['Show Diff', 'Approve', 'Always for this run', 'Deny'],
    );
    assert.equal(readFileSync(greet, 'utf8'), before, 'nothing is written while the edit waits');
    await workbench.screenshot('isc table with a pending edit');

    // Show Diff: VS Code's diff editor, the file as it is beside the proposal; still nothing written.
    await edit.getByRole('button', { name: 'Show Diff', exact: true }).click();
    await page.locator('.tabs-container .tab', { hasText: 'src/greet.js (current ↔ proposed by the run)' }).first().waitFor({ timeout: 15_000 });
    const diff = page.locator('.monaco-diff-editor').first();
    await diff.locator('.editor.modified .view-lines', { hasText: 'export function farewell(name) {' }).waitFor({ timeout: 15_000 });
    assert.doesNotMatch(await diff.locator('.editor.original .view-lines').innerText(), /farewell/, 'the left side is the file as it is');
    assert.equal(readFileSync(greet, 'utf8'), before, 'Show Diff writes nothing');
    await workbench.screenshot('diff of a pending edit beside the isc table');

    // Approve in the table: the edit is applied through the editor and saved.
    const again = await workbench.webview('ISC · Add a farewell');
    await again.locator('.approval[data-kind="edit"]').getByRole('button', { name: 'Approve', exact: true }).click();
    const deadline = Date.now() + 30_000;
    while (!/export function farewell\(name\)/.test(readFileSync(greet, 'utf8'))) {
      if (Date.now() > deadline) throw new Error('src/greet.js on disk did not change after Approve');
      await page.waitForTimeout(200);
    }

    // VERIFY's commands wait in the table too, with the exact command lines: approve them there.
    const command = again.locator('.approval[data-kind="command"]');
    await command.waitFor({ timeout: 60_000 });
    assert.match(await command.locator('.approval-command').innerText(), /node -e/);
    await workbench.screenshot('isc table with pending verification commands');
    await command.getByRole('button', { name: 'Approve', exact: true }).click();

    // The run's end, read from the table's header: the end-of-run notification sits above the
    // approval notifications the table answered (an extension cannot close a message it showed),
    // in a virtual list the reader may not scroll to in time. run.test.mjs reads that notification
    // where no approval was answered from the table.
    const view = await workbench.webview('ISC · Add a farewell');
    await view.locator('.badge.state[data-state="COMPLETE"]').waitFor({ timeout: 90_000 });
    assert.match(await view.locator('.score').innerText(), /^5 \/ 5 pass/);
    assert.equal(await view.locator('.approval').count(), 0, 'nothing waits any more');
  });
});

describe('"Deny always" on the ISC table\'s card of VERIFY\'s commands, as a person does', () => {
  const workbench = useWorkbench({ trusted: true, settings: DEMO_SETTINGS });

  it('approves the edit, presses "Deny always" on the commands: told where to undo it, the denial is in the state folder, the run does not pass them', async function () {
    this.timeout(300_000);
    await workbench.runCommand('Ideal State: Run Algorithm at Effort…');
    await workbench.pickQuickPickItem('STANDARD');
    await workbench.typeIntoInputBox(REQUEST);
    await workbench.quickPickRow('No template').waitFor({ timeout: 15_000 });
    await workbench.pickQuickPickItem('No template');
    const table = await workbench.webview('ISC · Add a farewell', { timeoutMs: 60_000 });
    const edit = table.locator('.approval[data-kind="edit"]');
    await edit.waitFor({ timeout: 60_000 });
    // An edit has no remembered denial: no "Deny always" on its card.
    assert.deepEqual((await edit.locator('.approval-actions button').allInnerTexts()).map((t) => t.trim()), ['Show Diff', 'Approve', 'Always for this run', 'Deny']);
    await edit.getByRole('button', { name: 'Approve', exact: true }).click();

    const command = table.locator('.approval[data-kind="command"]');
    await command.waitFor({ timeout: 60_000 });
    assert.deepEqual((await command.locator('.approval-actions button').allInnerTexts()).map((t) => t.trim()), ['Approve', 'Always for this run', 'Deny', 'Deny always']);
    const lines = (await command.locator('.approval-command pre').innerText()).split('\n').map((l) => l.replace(/^\$ /, '').trim()).filter(Boolean);
    assert.ok(lines.length > 0 && lines.every((l) => l.startsWith('node -e')), JSON.stringify(lines));
    await workbench.screenshot('isc table card of verification commands with deny always');
    await command.getByRole('button', { name: 'Deny always', exact: true }).click();
    // The table says what it did and where it is undone.
    const said = table.locator('.status-line', { hasText: 'Denied always' }).first();
    await said.waitFor({ timeout: 20_000 });
    assert.match(await said.innerText(), /not run or asked about again in this workspace[\s\S]*To undo, remove (it|them) from .*denied-commands\.json/);
    await workbench.screenshot('isc table after deny always');

    // The run ends without the commands: their criteria are not passes (the integration test
    // deny-always.test.ts checks they are UNKNOWN "not approved", and that the next Verify Criteria asks nobody).
    // Read from the table's header: the end-of-run notification can sit below the approval
    // notifications the table answered (they stay up; noted in the closing note), so it is not
    // the place to wait for the end.
    // A denial ends the run BLOCKED, waiting for the person — never "out of budget", never another round that asks again.
    const ended = table.locator('.badge.state[data-state="COMPLETE"], .badge.state[data-state="BUDGET_EXHAUSTED"], .badge.state[data-state="BLOCKED"], .badge.state[data-state="FAILED"]');
    await ended.first().waitFor({ timeout: 120_000 });
    assert.equal(await ended.first().getAttribute('data-state'), 'BLOCKED');
    const score = await table.locator('.score').innerText();
    assert.match(score, /^\d \/ 5 pass/, score);
    assert.doesNotMatch(score, /^5 \/ 5 pass/, `the run passed the denied commands' criteria: ${score}`);
    // The record in the profile's state folder (IDEAL_STATE_STATE_DIR), "always".
    const stateRoot = join(workbench.profile.root, 'state');
    const records = readdirSync(stateRoot, { recursive: true }).filter((p) => String(p).endsWith('denied-commands.json'));
    assert.equal(records.length, 1, JSON.stringify(records));
    const record = JSON.parse(readFileSync(join(stateRoot, String(records[0])), 'utf8'));
    assert.deepEqual(record.commands.map((c) => [c.command, c.always]).sort(), lines.map((l) => [l, true]).sort());

  });
});
