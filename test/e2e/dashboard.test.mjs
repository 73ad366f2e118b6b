import assert from 'node:assert/strict';
import { seedDashboard } from './seed-dashboard.mjs';
import { useWorkbench } from './workbench-suite.mjs';

// "Ideal State: Open Dashboard" in the real workbench over a store holding a week of runs: the
// totals, the charts and their tables show the store's figures (counted by the seed as it wrote
// them), at the window's normal width and at a narrow one, each with a screenshot.

const count = (n) => n.toLocaleString('en-US');

describe('the dashboard, as a person opens it', () => {
  const workbench = useWorkbench({ trusted: true });

  it('shows the store’s runs, pass rate, cost, gate verdicts per host, TAMPERED and loop snapshots, at normal and narrow width', async function () {
    this.timeout(300_000);
    await workbench.runCommand('Ideal State: Show Store Info');
    const [message] = (await workbench.notifications({ containing: 'Ideal State store:' })).filter((t) => t.includes('Ideal State store:'));
    const file = /Ideal State store: (.+?) — schema/.exec(message)?.[1];
    assert.ok(file, message);
    let seeded;
    await workbench.restart(async () => {
      seeded = await seedDashboard(file);
    });

    // The editor area to itself, as a person looking at figures would have it.
    const { page } = workbench;
    const open = (part) => page.evaluate((p) => (document.querySelector(`.part.${p}`)?.getBoundingClientRect().width ?? 0) > 0, part);
    if (await open('sidebar')) await workbench.runCommand('View: Close Primary Side Bar');
    if (await open('auxiliarybar')) await workbench.runCommand('View: Toggle Secondary Side Bar Visibility');
    await workbench.runCommand('Ideal State: Open Dashboard');
    const view = await workbench.webview('Ideal State Dashboard', { timeoutMs: 60_000 });
    await view.locator('.card[data-total="runs"] .card-value').waitFor({ timeout: 60_000 });
    const card = (key) => view.locator(`.card[data-total="${key}"] .card-value`).innerText();
    assert.equal(await card('runs'), count(seeded.runs));
    assert.equal(await card('complete'), `${seeded.complete} of ${seeded.runs} finished`);
    assert.equal(await card('pass-rate'), `${Math.round((seeded.passed / seeded.criteria) * 100)}% (${seeded.passed}/${seeded.criteria})`);
    assert.equal(await card('tokens'), `${count(seeded.inputTokens)} / ${count(seeded.outputTokens)}`);
    const usd = seeded.usdMicro / 1e6;
    assert.equal(await card('cost'), `$${usd.toFixed(usd >= 1 ? 2 : 4)}`);
    assert.equal(await card('gate'), '7');
    assert.equal(await card('tampered'), String(seeded.tampered));

    // Every chart is drawn, and has its table (read by screen readers; shown by "Table").
    const charts = await view.locator('figure.chart-figure').evaluateAll((fs) => fs.map((f) => f.dataset.chart));
    assert.deepEqual(charts, ['runs', 'pass-rate', 'time', 'cost', 'ratings', 'gate', 'failing', 'loop-loop-dash01']);
    for (const key of charts) {
      const figure = view.locator(`figure[data-chart="${key}"]`);
      assert.ok((await figure.locator('svg.chart rect, svg.chart circle').count()) > 0, `the ${key} chart draws something`);
      assert.ok((await figure.locator('table.data-table tbody tr').count()) > 0, `the ${key} chart has a table`);
    }
    assert.equal(await view.locator('figure[data-chart="runs"] tbody tr').count(), seeded.days);
    const runsPerDay = await view.locator('figure[data-chart="runs"] tbody tr').evaluateAll((rows) => rows.map((r) => Number(r.children[1].textContent)));
    assert.equal(runsPerDay.reduce((a, b) => a + b, 0), seeded.runs);

    const gate = view.locator('figure[data-chart="gate"]');
    await gate.getByRole('button', { name: 'Table' }).click();
    await gate.locator('table.data-table').waitFor({ state: 'visible' });
    const hostRows = await gate.locator('tbody tr').evaluateAll((rows) => rows.map((r) => Array.from(r.children, (c) => c.textContent)));
    assert.deepEqual(hostRows, Object.entries(seeded.hosts).map(([host, figures]) => [host, ...figures.map(String)]));
    const loop = view.locator('figure[data-chart="loop-loop-dash01"]');
    assert.deepEqual(await loop.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.children[4].textContent)), seeded.loopDeltas);
    assert.deepEqual(await view.locator('[data-table="tampered"] tbody tr').evaluateAll((rows) => rows.map((r) => [r.children[1].textContent, r.children[3].textContent])), [['codex', 'ISC-2']]);
    assert.deepEqual((await view.locator('[data-table="prds"] tbody th').allInnerTexts()).sort(), [...seeded.prds].sort());
    await gate.getByRole('button', { name: 'Chart' }).click();
    await view.locator('.dash-header').scrollIntoViewIfNeeded();

    await workbench.runCommand('Notifications: Clear All Notifications');
    await workbench.screenshot('dashboard normal width');

    // Narrow: the editor area about 400 px wide; the panels stack in one column, the figures unchanged.
    await page.setViewportSize({ width: 450, height: 800 });
    await page.waitForTimeout(800);
    const width = await page.evaluate(() => document.querySelector('.part.editor')?.getBoundingClientRect().width ?? 0);
    assert.ok(width > 300 && width <= 410, `the editor area is ${width} px wide`);
    const lefts = await view.locator('figure.chart-figure').evaluateAll((fs) => fs.map((f) => Math.round(f.getBoundingClientRect().left)));
    assert.equal(new Set(lefts).size, 1, `one column when narrow: ${lefts.join(', ')}`);
    assert.equal(await card('runs'), count(seeded.runs));
    await view.locator('.dash-header').scrollIntoViewIfNeeded();
    await workbench.screenshot('dashboard narrow width');
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});
