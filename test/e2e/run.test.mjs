import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO_SETTINGS } from '../harness/server.mjs';
import { answerApprovalNotification } from './approval-notifications.mjs';
import { useWorkbench } from './workbench-suite.mjs';

// What the README's "Your first run" walks a newcomer through: the sample workspace with its
// scripted demo model (labelled "scripted: demo-run"), as `npm start` sets it up.
const REQUEST = 'Add a farewell(name) to src/greet.js that says Goodbye and refuses an empty name';

describe('a first run of the Algorithm from the palette', () => {
  const workbench = useWorkbench({ trusted: true, settings: DEMO_SETTINGS });

  it('runs at STANDARD, asks to approve the edit with its real diff, and finishes with the PRD showing checked criteria and a LOG entry', async function () {
    this.timeout(240_000);
    const page = workbench.page;
    const prdsBefore = readdirSync(join(workbench.workspace, '.ideal-state', 'prds'));

    await workbench.runCommand('Ideal State: Run Algorithm at Effort…');
    const levels = await workbench.quickPickRows();
    assert.ok(levels.some((row) => /^STANDARD\s*120 s · 4–16 criteria · 2 iterations/.test(row)), JSON.stringify(levels));
    assert.ok(levels.some((row) => /^Auto\s*the effort classifier/.test(row)), 'Auto is offered');
    await workbench.pickQuickPickItem('STANDARD');
    await workbench.typeIntoInputBox(REQUEST);
    await workbench.quickPickRow('No template').waitFor({ timeout: 15_000 });
    await workbench.pickQuickPickItem('No template');

    // The specialist proposes its edit: a notification (not modal: the workbench stays usable), while the status bar shows the run.
    const greetBefore = readFileSync(join(workbench.workspace, 'src', 'greet.js'), 'utf8');
    const asked = await workbench.notifications({ containing: 'Edit src/greet.js', timeoutMs: 60_000 });
    const counted = asked.map((t) => /Edit src\/greet\.js \(\+(\d+) −(\d+)\)/.exec(t)).find(Boolean);
    assert.ok(counted, JSON.stringify(asked));
    const status = await workbench.statusBarTexts({ containing: 'Ideal State: EXECUTE' });
    assert.ok(status.some((t) => /Ideal State: EXECUTE 1\/2 · \d+%/.test(t)), JSON.stringify(status));
    await workbench.screenshot('run approval of an edit with the status bar mid-run');

    // Show Diff opens VS Code's diff editor (the file beside the proposal), then asks again.
    await answerApprovalNotification(workbench, 'Edit src/greet.js', 'Show Diff');
    await page.locator('.tabs-container .tab', { hasText: 'src/greet.js (current ↔ proposed by the run)' }).first().waitFor({ timeout: 15_000 });
    await page.locator('.monaco-diff-editor .editor.modified .view-lines', { hasText: 'export function farewell(name) {' }).first().waitFor({ timeout: 15_000 });
    await answerApprovalNotification(workbench, 'Edit src/greet.js', 'Approve', { timeoutMs: 15_000 });

    // VERIFY runs the criteria's commands: asked once for the set, with the exact command lines.
    const commands = await workbench.notifications({ containing: 'verification command', timeoutMs: 60_000 });
    assert.ok(commands.some((t) => t.includes('verification command') && t.includes('node -e')), JSON.stringify(commands));
    await answerApprovalNotification(workbench, 'verification command', 'Approve');

    const done = await workbench.notifications({ containing: 'run complete —', timeoutMs: 90_000 });
    assert.ok(done.some((t) => t.includes('run complete — 5 of 5 criteria pass')), JSON.stringify(done));

    // The file was changed through the editor and saved; the PRD on disk shows the run.
    const greetAfter = readFileSync(join(workbench.workspace, 'src', 'greet.js'), 'utf8');
    assert.match(greetAfter, /export function farewell\(name\)/);
    // The approval's counts were those of the real edit: the demo only adds lines, so +N is the growth, −0.
    const lines = (text) => text.split('\n').length;
    assert.deepEqual([Number(counted[1]), Number(counted[2])], [lines(greetAfter) - lines(greetBefore), 0], `${counted[0]} for an edit from ${lines(greetBefore)} to ${lines(greetAfter)} lines`);
    const prds = readdirSync(join(workbench.workspace, '.ideal-state', 'prds')).filter((n) => !prdsBefore.includes(n));
    assert.equal(prds.length, 1, `new PRDs: ${prds.join(', ')}`);
    const prd = readFileSync(join(workbench.workspace, '.ideal-state', 'prds', prds[0]), 'utf8');
    const criteria = prd.split('\n').filter((l) => /^- \[[ x]\] ISC-/.test(l));
    assert.equal(criteria.length, 5, prd);
    assert.ok(criteria.every((l) => l.startsWith('- [x] ')), prd);
    assert.match(prd, /\nstatus: COMPLETE\n/);
    const log = prd.slice(prd.indexOf('\n## LOG'));
    assert.match(log, /\n### /, `a LOG entry:\n${log}`);

    // Open PRD from the notification and look at it.
    await page.locator('.notification-list-item', { hasText: 'run complete —' }).getByRole('button', { name: 'Open PRD' }).first().click();
    await page.locator('.tabs-container .tab', { hasText: prds[0] }).first().waitFor({ timeout: 15_000 });
    await page.locator('.monaco-editor .view-lines', { hasText: 'status: COMPLETE' }).first().waitFor({ timeout: 15_000 });
    // To the end of the PRD: the checked criteria, the anti-criterion and the LOG entry.
    await page.locator('.monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+End');
    await page.locator('.monaco-editor .view-lines', { hasText: '## LOG' }).first().waitFor({ timeout: 15_000 });
    await workbench.screenshot('run finished with the PRD open');
  });
});
