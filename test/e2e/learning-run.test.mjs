import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO_SETTINGS } from '../harness/server.mjs';
import { answerApprovalNotification } from './approval-notifications.mjs';
import { useWorkbench } from './workbench-suite.mjs';

// The sample workspace's scripted demo (labelled "scripted: demo-run"), as in run.test.mjs.
const REQUEST = 'Add a farewell(name) to src/greet.js that says Goodbye and refuses an empty name';

describe('Learning after a real run: a person finishes a scripted run and rates it in the sidebar', () => {
  const workbench = useWorkbench({ trusted: true, settings: DEMO_SETTINGS });

  it('finishes a STANDARD run, rates it 3 with a comment, sees the status bar figures change and the reflection with a learning note', async function () {
    this.timeout(300_000);
    const page = workbench.page;
    const prdsBefore = readdirSync(join(workbench.workspace, '.ideal-state', 'prds'));

    // The run, as in run.test.mjs: palette, STANDARD, the request, no template, approvals.
    await workbench.runCommand('Ideal State: Run Algorithm at Effort…');
    await workbench.pickQuickPickItem('STANDARD');
    await workbench.typeIntoInputBox(REQUEST);
    await workbench.quickPickRow('No template').waitFor({ timeout: 15_000 });
    await workbench.pickQuickPickItem('No template');
    await workbench.notifications({ containing: 'Edit src/greet.js', timeoutMs: 60_000 });
    await workbench.statusBarTexts({ containing: 'Ideal State: EXECUTE' });
    await answerApprovalNotification(workbench, 'Edit src/greet.js', 'Approve');
    await answerApprovalNotification(workbench, 'verification command', 'Approve');
    const done = await workbench.notifications({ containing: 'run COMPLETE', timeoutMs: 90_000 });
    assert.ok(done.some((t) => t.includes('run COMPLETE')), JSON.stringify(done));
    const prds = readdirSync(join(workbench.workspace, '.ideal-state', 'prds')).filter((n) => !prdsBefore.includes(n));
    assert.equal(prds.length, 1);

    const activity = page.locator('.part.activitybar .action-item a[aria-label^="Ideal State"], .part.activitybar .action-item .action-label[aria-label^="Ideal State"]').first();
    await activity.waitFor({ timeout: 60_000 });
    await activity.click();

    // The Ratings view asks about the run that just finished.
    const view = await workbench.sideBarWebview('.ask h2');
    assert.equal(await view.locator('.ask h2').innerText(), 'How did this go?');
    assert.equal(await view.locator('.ask .request').innerText(), REQUEST);
    await view.getByRole('button', { name: 'Rate 3 of 10' }).click();
    const comment = view.getByRole('textbox', { name: 'Comment' });
    await comment.fill('it missed that farewell must trim whitespace');
    await comment.press('Enter');
    await view.locator('.waiting').waitFor({ timeout: 20_000 });
    assert.match(await view.locator('.recent li').first().innerText(), /3\/10[\s\S]*it missed that farewell must trim whitespace/);

    // After: the figure appears (there were no ratings before): one rating of 3, fewer than 3 ratings is →.
    await workbench.statusBarTexts({ containing: '3.0 →', timeoutMs: 20_000 });

    // The run's reflection, rewritten with the rating, carries a learning note.
    const reflections = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Reflections' }) });
    const row = reflections.locator('.monaco-list-row', { hasText: 'Add a farewell' });
    await row.waitFor({ timeout: 30_000 });
    for (let i = 0; i < 50 && !/learning note/.test(await row.innerText()); i++) await page.waitForTimeout(200);
    assert.match(await row.innerText(), /3\/10 · learning note/);
    await workbench.screenshot('learning after a real run: rated 3, reflection with a learning note');
  });
});
