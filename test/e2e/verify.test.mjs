import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useWorkbench } from './workbench-suite.mjs';

const DEMO = 'PRD-20261122-verify-demo.md';
const DIALOG = '.monaco-dialog-box';

/** Ctrl+G in the active editor: the editor draws only the lines in view. */
async function goToLine(page, line) {
  await page.keyboard.press('Control+G');
  await page.locator('.quick-input-widget .quick-input-box input').fill(`:${line}`);
  await page.keyboard.press('Enter');
}

describe('verifying a PRD from the palette', () => {
  const workbench = useWorkbench({ trusted: true });
  const demoOnDisk = () => readFileSync(join(workbench.workspace, '.ideal-state', 'prds', DEMO), 'utf8');

  it('asks once to run the PRD\'s commands, then shows passes and failures in the PRD', async () => {
    const { page } = workbench;
    await page.keyboard.press('Control+P');
    await page.locator('.quick-input-widget .quick-input-box input').fill(DEMO);
    await workbench.quickPickRow(DEMO).click({ timeout: 15_000 });
    await page.locator('.tabs-container .tab', { hasText: DEMO }).first().waitFor({ timeout: 15_000 });
    await page.locator('.monaco-editor .view-lines', { hasText: 'ISC-DEMO-001' }).first().waitFor({ timeout: 15_000 });

    await workbench.runCommand('Ideal State: Verify Criteria');
    const dialog = page.locator(DIALOG);
    await dialog.waitFor({ timeout: 30_000 });
    const asked = (await dialog.innerText()).replace(/\s+/g, ' ');
    assert.match(asked, /runs these \d+ commands to verify its criteria/, asked);
    for (const command of ['node --version', 'task: check: greeting exists', 'task: npm: check:readme', 'task: check: changelog exists']) {
      assert.ok(asked.includes(command), `the dialog lists ${command}: ${asked}`);
    }
    await workbench.screenshot('verify asks to run the PRD commands');
    await dialog.getByRole('button', { name: 'Run Them' }).click();

    const summary = (await workbench.notifications({ containing: 'not passing', timeoutMs: 90_000 })).find((t) => t.includes('not passing'));
    assert.equal(summary, 'Ideal State: 5 passed, 1 failed, 1 unknown — not passing (ISC-DEMO-004 is CRITICAL)');

    // In the editor: the checkboxes of the passes are ticked, the failure's and the unknown's are not.
    await goToLine(page, 26);
    const lines = page.locator('.monaco-editor .view-lines');
    // The editor renders spaces as no-break spaces.
    await lines.filter({ hasText: /-\s\[x\]\sISC-DEMO-001/ }).first().waitFor({ timeout: 15_000 });
    const shown = (await lines.first().innerText()).replace(/\u00a0/g, ' ');
    assert.match(shown, /- \[ \] ISC-DEMO-004/);
    // On disk, with a LOG entry that names what did not pass.
    const text = demoOnDisk();
    for (const id of ['ISC-DEMO-001', 'ISC-DEMO-002', 'ISC-DEMO-003', 'ISC-DEMO-005', 'ISC-A-DEMO-001']) assert.match(text, new RegExp(`^- \\[x\\] ${id}: `, 'm'));
    for (const id of ['ISC-DEMO-004', 'ISC-DEMO-006']) assert.match(text, new RegExp(`^- \\[ \\] ${id}: `, 'm'));
    assert.match(text, /^- Criteria: 5\/7 passing$/m);
    assert.match(text, /^- Failing: ISC-DEMO-004$/m);
    assert.match(text, /^- Unknown: ISC-DEMO-006$/m);
    await workbench.screenshot('verify results in the PRD');
  });

  it('shows the results in the Testing view', async () => {
    const { page } = workbench;
    await workbench.runCommand('View: Show Testing');
    const tree = page.locator('.test-explorer');
    const prdRow = tree.locator('.monaco-list-row', { hasText: 'Verify demo' }).first();
    await prdRow.waitFor({ timeout: 30_000 });
    if ((await prdRow.getAttribute('aria-expanded')) === 'false') await prdRow.click();
    const row = (id) => tree.locator('.monaco-list-row', { hasText: id }).first();
    await row('ISC-DEMO-004').waitFor({ timeout: 15_000 });
    const icon = async (id) => (await row(id).locator('.computed-state').first().getAttribute('class')) ?? '';
    await page.waitForFunction(() => document.querySelectorAll('.test-explorer .codicon-testing-passed-icon').length >= 5, undefined, { timeout: 15_000 });
    assert.match(await icon('ISC-DEMO-001'), /testing-passed-icon/);
    assert.match(await icon('ISC-DEMO-004'), /testing-failed-icon/);
    assert.match(await icon('ISC-DEMO-006'), /testing-skipped-icon/);
    // Beside it, the PRD at its criteria, where the editor marks each line's result too.
    await page.locator('.tabs-container .tab', { hasText: DEMO }).first().click();
    await goToLine(page, 26);
    const screenshot = await workbench.screenshot('verify results in the Testing view');
    assert.ok(screenshot.endsWith('.png'));
  });

  it('does not ask again for the same commands', async () => {
    const { page } = workbench;
    await page.locator('.tabs-container .tab', { hasText: DEMO }).first().click();
    await workbench.runCommand('Ideal State: Verify Criteria');
    const deadline = Date.now() + 90_000;
    while ((demoOnDisk().match(/^- Work: Verified 7 criteria/gm)?.length ?? 0) < 2) {
      assert.equal(await page.locator(DIALOG).count(), 0, 'no confirmation dialog the second time');
      assert.ok(Date.now() < deadline, 'the second verification wrote its LOG entry');
      await page.waitForTimeout(300);
    }
    assert.equal(await page.locator(DIALOG).count(), 0, 'no confirmation dialog the second time');
  });
});
