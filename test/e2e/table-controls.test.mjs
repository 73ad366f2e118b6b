import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { DEMO_SETTINGS } from '../harness/server.mjs';
import { answerApprovalNotification } from './approval-notifications.mjs';
import { useWorkbench } from './workbench-suite.mjs';

// The ISC table header's run controls, clicked as a person does (issue 16: every header
// button has an e2e click): Cancel stops a going run, Resume takes it up again where it
// stopped, Rate run… records a rating. "Re-verify all" and "Open PRD" are clicked in
// table.test.mjs.

const DEMO_SCRIPT = join('.ideal-state', 'demo', 'demo-run.yaml');

describe('the ISC table header’s run controls, as a person uses them', () => {
  const workbench = useWorkbench({ trusted: true, settings: DEMO_SETTINGS });

  it('cancels a going run with Cancel, goes on with Resume to COMPLETE, and rates it with Rate run…', async function () {
    this.timeout(300_000);
    const page = workbench.page;
    await workbench.runCommand('Ideal State: Run Algorithm at Effort…');
    await workbench.pickQuickPickItem('STANDARD');
    await workbench.typeIntoInputBox('Add a farewell(name) to src/greet.js that says Goodbye and refuses an empty name');
    await workbench.quickPickRow('No template').waitFor({ timeout: 15_000 });
    await workbench.pickQuickPickItem('No template');

    // The specialist's edit waits for approval; the run's table is open beside it.
    await workbench.notifications({ containing: 'Edit src/greet.js', timeoutMs: 60_000 });
    await page.locator('.tabs-container .tab', { hasText: 'ISC · Add a farewell' }).first().waitFor({ timeout: 15_000 });
    const view = page.frameLocator('iframe.webview.ready:visible').frameLocator('#active-frame');
    await view.locator('.actions button[data-action="cancel"]').waitFor({ timeout: 20_000 });

    // Cancel: the run stops at its next safe point, the waiting edit is withdrawn, the file is untouched.
    const greetBefore = readFileSync(join(workbench.workspace, 'src', 'greet.js'), 'utf8');
    await view.locator('.actions button[data-action="cancel"]').click();
    await view.locator('.badge.state[data-state="CANCELLED"]').waitFor({ timeout: 30_000 });
    await view.locator('.actions button[data-action="resume"]').waitFor({ timeout: 10_000 });
    assert.equal(await view.locator('.actions button[data-action="cancel"]').count(), 0, 'a cancelled run offers no Cancel');
    assert.equal(readFileSync(join(workbench.workspace, 'src', 'greet.js'), 'utf8'), greetBefore, 'the refused edit changed nothing');
    await workbench.screenshot('isc table after Cancel');

    // The scripted model replays its script from the start for each run it serves: the resumed
    // run goes on at EXECUTE, so it gets the answers from the specialist's edit onward.
    const scriptFile = join(workbench.workspace, DEMO_SCRIPT);
    const script = parse(readFileSync(scriptFile, 'utf8'));
    const edit = script.steps.findIndex((s) => s.toolCalls?.some((c) => c.name === 'edit_file'));
    assert.ok(edit > 0, 'the demo script has the specialist’s edit');
    writeFileSync(scriptFile, stringify({ ...script, steps: script.steps.slice(edit) }));

    // The cancelled run's approval notification stays in the center (an extension cannot take a
    // notification back); clear it, so the edit the resumed run asks about is the one answered.
    await workbench.runCommand('Notifications: Clear All Notifications');
    // Resume: the run goes on where it stopped, asks for the edit again, verifies and completes.
    await view.locator('.actions button[data-action="resume"]').click();
    await answerApprovalNotification(workbench, 'Edit src/greet.js', 'Approve');
    await answerApprovalNotification(workbench, 'verification command', 'Approve');
    await view.locator('.badge.state[data-state="COMPLETE"]').waitFor({ timeout: 90_000 });
    assert.match(readFileSync(join(workbench.workspace, 'src', 'greet.js'), 'utf8'), /farewell/);
    assert.equal(await view.locator('.actions button[data-action="resume"]').count(), 0, 'a finished run offers no Resume');
    await workbench.screenshot('isc table after Resume');

    // Rate run…: takes the person to the table's own rating (focus on its first score), where
    // a score and a comment are given; once rated, the header offers it no more.
    // The "run complete" toast sits over the table's lower right, where the higher scores are.
    await workbench.runCommand('Notifications: Clear All Notifications');
    await view.locator('.actions button[data-action="rate"]').click();
    await view.locator('.run-rating button.rate-score:focus').waitFor({ timeout: 10_000 });
    await view.getByRole('button', { name: 'Rate 9 of 10' }).click();
    const comment = view.locator('.run-rating').getByRole('textbox', { name: 'Comment' });
    await comment.fill('Cancelled and resumed without losing anything');
    await comment.press('Enter');
    await view.locator('.run-rating .rated .badge[data-rating="9"]').waitFor({ timeout: 20_000 });
    await view.locator('.actions button[data-action="rate"]').waitFor({ state: 'detached', timeout: 20_000 });
    await workbench.screenshot('isc table after Rate run');
  });
});
