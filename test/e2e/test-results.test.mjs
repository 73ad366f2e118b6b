import assert from 'node:assert/strict';
import { useWorkbench } from './workbench-suite.mjs';

// VS Code's own Test Results view shows what the Testing view was told: a failed criterion's
// verdict in the product's words on a short first line (never FAIL, UNKNOWN or a failure code),
// its evidence wrapped at spaces, so the narrow column never breaks a word in two.
const DEMO = 'PRD-20261122-verify-demo.md';
const CODE = /\b(?:FAIL|UNKNOWN|PARTIAL|[A-Z]+_[A-Z_]+)\b/;

describe('Test Results: a criterion\'s result in the product\'s words', () => {
  const workbench = useWorkbench({ trusted: true });

  it('shows a failed criterion\'s verdict in words, on a short first line', async function () {
    this.timeout(240_000);
    const { page } = workbench;
    await page.keyboard.press('Control+P');
    await page.locator('.quick-input-widget .quick-input-box input').fill(DEMO);
    await workbench.quickPickRow(DEMO).click({ timeout: 15_000 });
    await page.locator('.monaco-editor .view-lines', { hasText: 'ISC-DEMO-001' }).first().waitFor({ timeout: 15_000 });
    await workbench.runCommand('Ideal State: Verify Criteria');
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 30_000 });
    await dialog.getByRole('button', { name: 'Run Them' }).click();
    await workbench.notifications({ containing: 'not passing', timeoutMs: 120_000 });
    await workbench.runCommand('Test Results: Focus on Test Results View');
    const results = page.locator('.part.panel');
    const message = results.locator('.monaco-list-row', { hasText: 'Fails:' }).first();
    // The failed criterion's row holds its message: open it when the view shows it closed.
    for (let i = 0; i < 3 && !(await message.isVisible()); i++) {
      const failed = results.locator('.monaco-list-row[aria-expanded="false"]', { hasText: 'ISC-DEMO-004' }).first();
      if (await failed.isVisible()) await failed.click();
      await message.waitFor({ timeout: 10_000 }).catch(() => undefined);
    }
    await message.waitFor({ timeout: 15_000 });
    const first = (await message.innerText()).trim();
    // The tree's row: the criterion, then its message's first line.
    assert.match(first, /ISC-DEMO-004: .*Fails: requirement not covered/, first);
    assert.doesNotMatch(first, CODE, first);
    const rows = (await results.locator('.monaco-list-row').allInnerTexts()).map((t) => t.trim());
    for (const row of rows) assert.doesNotMatch(row, /\b(?:UNSUPPORTED_CLAIM|REQUIREMENT_COVERAGE|EXECUTION_ERROR)\b/, row);
    // The output of the criterion with no verdict, in the terminal beside the tree: every word whole.
    await results.locator('.monaco-list-row', { hasText: 'ISC-DEMO-006' }).first().click();
    const terminal = results.locator('.xterm-rows > div');
    await terminal.filter({ hasText: 'ISC-DEMO-006' }).first().waitFor({ timeout: 15_000 });
    const shown = (await terminal.allInnerTexts()).map((t) => t.replace(/\u00a0/g, ' ').trim()).filter(Boolean);
    const words = new Set('ISC-DEMO-006 — no verdict: claim without evidence: no model configured to judge this criterion (Custom needs one: Select Model, or a models file)'.split(' '));
    for (const row of shown) for (const word of row.split(/\s+/)) assert.ok(words.has(word), `"${word}" is a whole word (terminal rows: ${JSON.stringify(shown)})`);
    await workbench.screenshot('test results in the product words');
  });
});
