import assert from 'node:assert/strict';
import { seedFinishedRuns } from './seed-finished-runs.mjs';
import { useWorkbench } from './workbench-suite.mjs';

describe('Learning: a person rates a finished run in the sidebar', () => {
  const workbench = useWorkbench({ trusted: true });

  it('rates the last run 3 with a comment, sees the status bar figures change and a reflection with a learning note', async () => {
    await workbench.runCommand('Ideal State: Show Store Info');
    const [message] = (await workbench.notifications({ containing: 'Ideal State store:' })).filter((t) => t.includes('Ideal State store:'));
    const file = /Ideal State store: (.+?) — schema/.exec(message)?.[1];
    assert.ok(file, message);
    let pending;
    await workbench.restart(async () => {
      pending = await seedFinishedRuns(file);
    });

    const { page } = workbench;
    // The Ideal State container in the activity bar, as a person would open it.
    const activity = page.locator('.part.activitybar .action-item a[aria-label^="Ideal State"], .part.activitybar .action-item .action-label[aria-label^="Ideal State"]').first();
    await activity.waitFor({ timeout: 60_000 });
    await activity.click();

    // Before: four ratings of 8, 8, 9, 8.
    await workbench.statusBarTexts({ containing: '8.3 →', timeoutMs: 30_000 });

    const view = await workbench.sideBarWebview('.ask h2');
    assert.equal(await view.locator('.ask h2').innerText(), 'How did this go?');
    assert.equal(await view.locator('.ask .request').innerText(), pending.request);
    assert.equal(await view.locator('svg.chart circle').count(), 4, 'the chart has one point per rating');
    await view.getByRole('button', { name: 'Rate 3 of 10' }).click();
    assert.equal(await view.getByRole('button', { name: 'Rate 3 of 10' }).getAttribute('aria-pressed'), 'true');
    const comment = view.getByRole('textbox', { name: 'Comment' });
    await comment.fill('the toggle forgets my choice after a reload');
    await comment.press('Enter');

    // The view answers, then asks about nothing (every finished run is rated).
    await view.locator('.waiting').waitFor({ timeout: 20_000 });
    // The chart is redrawn with the new rating a moment after the form answers: wait for its fifth point.
    await view.locator('svg.chart circle').nth(4).waitFor({ timeout: 20_000 });
    assert.equal(await view.locator('svg.chart circle').count(), 5);
    assert.match(await view.locator('.recent li').first().innerText(), /3\/10[\s\S]*the toggle forgets my choice after a reload/);

    // After: 8, 8, 9, 8, 3 → average 7.2, second half below the first by more than half a point.
    const texts = await workbench.statusBarTexts({ containing: '7.2 ↓', timeoutMs: 20_000 });
    assert.ok(!texts.some((t) => t.includes('8.3 →')), JSON.stringify(texts));

    await workbench.runCommand('Ideal State: Mine Reflections');
    const reflections = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Reflections' }) });
    // The tree refreshes once mining has named the themes.
    const themeRow = reflections.locator('.monaco-list-row').first();
    await themeRow.waitFor({ timeout: 20_000 });
    for (let i = 0; i < 50 && /Not mined yet/.test(await themeRow.innerText()); i++) await page.waitForTimeout(200);
    assert.doesNotMatch(await themeRow.innerText(), /Not mined yet|fact · based/, 'mining named the themes by their content');
    const row = reflections.locator('.monaco-list-row', { hasText: 'Add a dark mode toggle' });
    await row.waitFor({ timeout: 20_000 });
    assert.match(await row.innerText(), /3\/10 · learning note/);
    // The Runs view folds away, as a person would, so the Ratings view has room for its chart.
    const runsHeader = page.locator('.part.sidebar .pane-header', { hasText: /^\s*Runs/ }).first();
    if ((await runsHeader.getAttribute('aria-expanded')) === 'true') await runsHeader.click();
    // A taller window, so the chart and the tree show whole in one picture.
    await page.setViewportSize({ width: 1280, height: 1100 });
    const chart = await workbench.sideBarWebview('.chart-box svg');
    await chart.locator('.chart-box svg').first().scrollIntoViewIfNeeded();
    const shot = await workbench.screenshot('learning sidebar ratings chart and reflections tree');
    await page.setViewportSize({ width: 1280, height: 800 });

    await row.click();
    const editor = page.locator('.editor-instance .view-lines').first();
    await editor.waitFor({ timeout: 15_000 });
    // Wrapped lines come back as separate lines: read the text with its whitespace folded.
    const visible = async () => (await editor.innerText()).replace(/\s+/g, ' ');
    assert.match(await visible(), /# Reflection: Add a dark mode toggle to the settings page/);
    // The note is at the end of the document: go there as a reader would.
    await editor.click();
    await page.keyboard.press('Control+End');
    await page.waitForFunction(() => (document.querySelector('.editor-instance .view-lines')?.textContent ?? '').replace(/\s+/g, ' ').includes('Run: [run-e2e0005]'), undefined, { timeout: 15_000 });
    const text = await visible();
    assert.match(text, /## Learning note/);
    assert.match(text, /Failed: ISC-2 "Toggle state persists after a page reload"/);
    assert.match(text, /Never proven: ISC-3/);
    assert.match(text, /Run: \[run-e2e0005\]\(ideal-state-run:/);
    await workbench.screenshot('learning reflection opened in full');
    console.log(`      screenshot: ${shot}`);
  });
});
