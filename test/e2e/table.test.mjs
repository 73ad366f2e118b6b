import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO_SETTINGS } from '../harness/server.mjs';
import { answerApprovalNotification } from './approval-notifications.mjs';
import { useWorkbench } from './workbench-suite.mjs';

const HOSTILE_TEXT = '<img src=x onerror=alert(1)>';

// A PRD a person verified once (Verify Criteria, no model): one pass with a file:line, one
// criterion whose text is markup and whose evidence quotes a <script> line, and one that
// fails until the workspace gets a CHANGELOG.
const PRD = `---
prd: true
id: PRD-20261122-table-demo
status: CRITERIA_DEFINED
effort_level: FAST
created: 2026-11-22
updated: 2026-11-22
iteration: 0
max_iterations: 1
---

# Table demo for greeting users

## Ideal State Criteria

- [ ] ISC-1: Greeting template in the source reads Hello with the name | Verify: Grep: Hello, \\$\\{name\\}!
  - Probe: passes before any work — can this check fail? (2026-11-22)
- [ ] ISC-2: ${HOSTILE_TEXT} | Verify: Grep: <script>alert\\(2\\)
- [ ] ISC-3: The workspace ships a CHANGELOG file that describes its releases | Verify: Read: CHANGELOG.md
`;

describe('the ISC table, as a person uses it', () => {
  const workbench = useWorkbench({ trusted: true, settings: DEMO_SETTINGS });
  const dialogs = [];

  async function table() {
    return workbench.webview('ISC · Table demo');
  }

  it('opens the table of a verified PRD\'s run, follows a file:line link, filters to FAIL and re-verifies one row; markup stays text', async function () {
    this.timeout(240_000);
    const page = workbench.page;
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    writeFileSync(join(workbench.workspace, 'src', 'hostile.html'), '<p>hi</p>\n<script>alert("evidence")</script>\n');
    mkdirSync(join(workbench.workspace, '.ideal-state', 'prds'), { recursive: true });
    writeFileSync(join(workbench.workspace, '.ideal-state', 'prds', 'PRD-20261122-table-demo.md'), PRD);

    // Verify the PRD once: its run, criteria and report land in the store.
    await workbench.runCommand('Go to File...');
    await workbench.pickQuickPickItem('PRD-20261122-table-demo.md');
    await page.locator('.monaco-editor .view-lines', { hasText: 'ISC-3' }).first().waitFor({ timeout: 20_000 });
    await workbench.runCommand('Ideal State: Verify Criteria');
    await workbench.notifications({ containing: 'not passing', timeoutMs: 60_000 });

    await workbench.runCommand('Ideal State: Open ISC Table');
    await workbench.pickQuickPickItem('Table demo for greeting users');
    let view = await table();
    const rows = view.locator('.body .row');
    await rows.nth(2).waitFor({ timeout: 20_000 });
    assert.deepEqual(await rows.evaluateAll((els) => els.map((e) => e.dataset.id)), ['ISC-1', 'ISC-2', 'ISC-3']);
    const outcome = (id) => view.locator(`.row[data-id="${id}"] .c-outcome [data-outcome]`).getAttribute('data-outcome');
    assert.equal(await outcome('ISC-1'), 'PASS');
    assert.equal(await outcome('ISC-3'), 'FAIL');
    // Just verified, nothing is stale: ISC-3's CHANGELOG.md is missing as it was when it was read
    // (the table's catch-up once took a missing file for a changed one and marked ISC-2 and ISC-3).
    await page.waitForTimeout(1500);
    assert.deepEqual(await view.locator('.body .row').evaluateAll((els) => els.filter((e) => e.classList.contains('stale')).map((e) => e.dataset.id)), []);

    // Probe the probes (issue 28 §5): ISC-1's check passed before any work (the "Probe" note a lock
    // or the run's probe left in the PRD); its row says so in words with a title, the others do not,
    // and at a narrow width the words are still there beside the criterion.
    const mark = view.locator('.row[data-id="ISC-1"] .c-text .probe-mark');
    await mark.waitFor({ timeout: 20_000 });
    assert.equal(await mark.textContent(), 'passes before any work?');
    assert.equal(await mark.getAttribute('title'), 'Probe: passes before any work — can this check fail?');
    assert.deepEqual(await view.locator('.body .row').evaluateAll((els) => els.filter((e) => e.querySelector('.probe-mark')).map((e) => e.dataset.id)), ['ISC-1']);
    await workbench.screenshot('isc table probed row marked');
    // Narrow, as a person makes it: the side bars closed, the window 450 px wide (the editor about 400).
    const sideBar = (part) => page.evaluate((p) => (document.querySelector(p)?.getBoundingClientRect().width ?? 0) > 0, part);
    const primaryOpen = await sideBar('.part.sidebar');
    const secondaryOpen = await sideBar('.part.auxiliarybar');
    if (primaryOpen) await workbench.runCommand('View: Close Primary Side Bar');
    if (secondaryOpen) await workbench.runCommand('View: Toggle Secondary Side Bar Visibility');
    await page.setViewportSize({ width: 450, height: 800 });
    await page.waitForTimeout(800);
    await mark.scrollIntoViewIfNeeded();
    assert.ok(await mark.isVisible(), 'the probe marker is visible at a narrow width');
    const box = await mark.boundingBox();
    assert.ok(box && box.width > 20 && box.height > 5, JSON.stringify(box));
    await workbench.screenshot('isc table probed row marked narrow');
    await page.setViewportSize({ width: 1280, height: 800 });
    if (primaryOpen) await workbench.runCommand('View: Toggle Primary Side Bar Visibility');
    if (secondaryOpen) await workbench.runCommand('View: Toggle Secondary Side Bar Visibility');
    await page.waitForTimeout(500);

    // Markup from a criterion and from evidence is text: no <img>, no extra <script>, no dialog.
    assert.equal(await view.locator(`.row[data-id="ISC-2"] .c-text .text`).innerText(), HOSTILE_TEXT);
    await view.locator('.row[data-id="ISC-2"] .c-id').click();
    const evidence2 = view.locator('.row[data-id="ISC-2"] pre.evidence');
    await evidence2.waitFor({ timeout: 10_000 });
    // The evidence quotes the pattern, markup and all.
    assert.match(await evidence2.innerText(), /<script>alert/);
    assert.equal(await view.locator('img').count(), 0, 'no img element was made');
    // (The webview host injects a script of its own beside the bundle; none may come from the data.)
    assert.equal(await view.locator('main script').count(), 0, 'no script element inside the table');
    assert.equal(await view.locator('script', { hasText: 'alert' }).count(), 0, 'no script with the evidence text');
    await workbench.screenshot('isc table finished with evidence open');

    // Keyboard: focus the first row, arrow down twice, Enter opens ISC-3's evidence.
    await view.locator('.row[data-id="ISC-1"]').focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    assert.equal(await view.locator('.row:focus').getAttribute('data-id'), 'ISC-3');
    await page.keyboard.press('Enter');
    await view.locator('.row[data-id="ISC-3"] pre.evidence').waitFor({ timeout: 10_000 });

    // Evidence of ISC-1 names src/greet.js:<line>; its link opens the editor at that line.
    await view.locator('.row[data-id="ISC-1"] .c-id').click();
    const link = view.locator('.row[data-id="ISC-1"] a.loc[data-file="src/greet.js"]').first();
    await link.waitFor({ timeout: 10_000 });
    const line = Number(await link.getAttribute('data-line'));
    assert.ok(line > 1, `a line of src/greet.js: ${line}`);
    await link.click();
    await page.locator('.tabs-container .tab', { hasText: 'greet.js' }).first().waitFor({ timeout: 15_000 });
    const status = await workbench.statusBarTexts({ containing: `Ln ${line},` });
    assert.ok(status.some((t) => t.startsWith(`Ln ${line}, Col 1`)), JSON.stringify(status));

    // Filter to FAIL: ISC-2 and ISC-3 stay.
    view = await table();
    await view.locator('select.filter-outcome').selectOption('FAIL');
    // The filtered body is drawn a moment after the choice (after the narrow step above, the
    // table may also be drawing its rows again): wait for it, up to 10 s.
    const shownIds = () => view.locator('.body .row').evaluateAll((els) => els.map((e) => e.dataset.id));
    for (let i = 0; i < 50 && JSON.stringify(await shownIds()) !== JSON.stringify(['ISC-2', 'ISC-3']); i++) await page.waitForTimeout(200);
    assert.deepEqual(await shownIds(), ['ISC-2', 'ISC-3']);
    await workbench.screenshot('isc table filtered to FAIL');

    // The workspace gets its CHANGELOG; re-verifying ISC-3 alone turns it to PASS live.
    writeFileSync(join(workbench.workspace, 'CHANGELOG.md'), '# Changelog\n\n## 0.1.0\n- First release\n');
    await view.locator('.row[data-id="ISC-3"]').hover();
    await view.locator('.row[data-id="ISC-3"] button[data-action="reverify"]').click();
    await view.locator('.status-line', { hasText: 'ISC-3' }).waitFor({ timeout: 30_000 });
    // Filtered to FAIL, the passing row leaves the list.
    await view.locator('.row[data-id="ISC-3"]').waitFor({ state: 'detached', timeout: 30_000 });
    await view.locator('select.filter-outcome').selectOption('ALL');
    assert.equal(await outcome('ISC-3'), 'PASS');
    assert.equal(await outcome('ISC-1'), 'PASS', 'the other rows kept their outcome');

    // Edit a criterion inline: F2, new text, Enter — a new criteria version.
    await view.locator('.row[data-id="ISC-1"]').focus();
    await page.keyboard.press('F2');
    const input = view.locator('input.edit-text');
    await input.fill('Greeting template in the source reads Hello, name! exactly');
    await input.press('Enter');
    const saved = view.locator('.status-line', { hasText: 'saved as criteria version' });
    await saved.waitFor({ timeout: 15_000 });
    const version = /criteria version (\d+)/.exec(await saved.innerText())[1];
    await view.locator('.row[data-id="ISC-1"] .c-text .text', { hasText: 'Hello, name! exactly' }).waitFor({ timeout: 15_000 });
    await view.locator('.subtitle', { hasText: `criteria v${version}` }).waitFor({ timeout: 15_000 });
    assert.deepEqual(dialogs, [], 'nothing opened an alert');

    // Reload the window: the panel serializer brings the table back with the run it showed.
    await workbench.reloadWindow();
    const restored = await workbench.webview('ISC · Table demo', { timeoutMs: 60_000 });
    await restored.locator('.row[data-id="ISC-1"] .c-text .text', { hasText: 'Hello, name! exactly' }).waitFor({ timeout: 30_000 });
    assert.deepEqual(await restored.locator('.body .row').evaluateAll((els) => els.map((e) => e.dataset.id)), ['ISC-1', 'ISC-2', 'ISC-3']);
    await workbench.screenshot('isc table restored after a reload');
  });

  it('opens beside the editor when a scripted run starts and follows it live to the end', async function () {
    this.timeout(240_000);
    const page = workbench.page;
    await workbench.runCommand('View: Close All Editors');
    await workbench.runCommand('Ideal State: Run Algorithm at Effort…');
    await workbench.pickQuickPickItem('STANDARD');
    await workbench.typeIntoInputBox('Add a farewell(name) to src/greet.js that says Goodbye and refuses an empty name');
    await workbench.quickPickRow('No template').waitFor({ timeout: 15_000 });
    await workbench.pickQuickPickItem('No template');

    const greetBefore = readFileSync(join(workbench.workspace, 'src', 'greet.js'), 'utf8');
    // The specialist asks to approve its edit (a notification); the table is open beside it, mid-run.
    await workbench.notifications({ containing: 'Edit src/greet.js', timeoutMs: 60_000 });
    await page.locator('.tabs-container .tab', { hasText: 'ISC · Add a farewell' }).first().waitFor({ timeout: 15_000 });
    // Read the table beside the notification without clicking: nothing verified yet.
    const beside = page.frameLocator('iframe.webview.ready:visible').frameLocator('#active-frame');
    await beside.locator('.body .row').first().waitFor({ timeout: 20_000 });
    const midRun = await beside.locator('.body .row .c-outcome [data-outcome]').evaluateAll((els) => els.map((e) => e.getAttribute('data-outcome')));
    assert.ok(!midRun.includes('PASS'), `before VERIFY no row passes: ${JSON.stringify(midRun)}`);
    await workbench.screenshot('isc table mid-run beside an approval');

    // While the edit waits for a person, that time is shown as waiting and the budget stands
    // still — in the status bar, the progress notification and the table's time bar alike.
    const timeBar = beside.locator('[data-budget="time"]');
    await beside.locator('[data-budget="time"].waiting').waitFor({ timeout: 20_000 });
    const usedWhenAsked = Number(await timeBar.getAttribute('aria-valuenow'));
    const waitingIn = (texts) => texts.map((t) => /Ideal State: EXECUTE 1\/2 · (\d+)% · waiting for approval (\d+) s/.exec(t)).find(Boolean);
    const first = waitingIn(await workbench.statusBarTexts({ containing: 'waiting for approval' }));
    assert.ok(first, 'the status bar says the run waits for approval');
    // Until the wait has grown by 3 s (the status bar counts it every second) …
    await page.waitForFunction(
      (before) => [...document.querySelectorAll('.part.statusbar .statusbar-item')].some((el) => Number(/waiting for approval (\d+) s/.exec(el.textContent ?? '')?.[1] ?? -1) >= before + 3),
      Number(first[2]),
      { timeout: 30_000 },
    );
    const later = waitingIn(await workbench.statusBarTexts({ containing: 'waiting for approval' }));
    // … the percent has not moved, nor has the table's time, which agrees with the status bar.
    assert.equal(later[1], first[1], `the budget percent stays while waiting: ${first[0]} → ${later[0]}`);
    assert.equal(Number(await timeBar.getAttribute('aria-valuenow')), usedWhenAsked, 'the table counts no budget time while waiting');
    assert.ok(Math.abs(Math.round((usedWhenAsked / 120) * 100) - Number(later[1])) <= 2, `the table (${usedWhenAsked} s of 120 s) and the status bar (${later[1]}%) agree`);
    assert.match(await timeBar.getAttribute('aria-valuetext'), /waiting for approval \d+ s \(not counted\)/);
    const progress = await workbench.notifications({ containing: 'waiting for approval' });
    assert.ok(progress.some((t) => /EXECUTE 1\/2 · \d+% · waiting for approval \d+ s/.test(t)), `the progress notification is live: ${JSON.stringify(progress)}`);
    await workbench.screenshot('isc table waiting for approval');
    await answerApprovalNotification(workbench, 'Edit src/greet.js', 'Approve');
    await answerApprovalNotification(workbench, 'verification command', 'Approve');
    await workbench.notifications({ containing: 'run complete —', timeoutMs: 90_000 });

    let view = await workbench.webview('ISC · Add a farewell');
    await view.locator('.badge.state[data-state="COMPLETE"]').waitFor({ timeout: 20_000 });
    const outcomes = await view.locator('.body .row .c-outcome [data-outcome]').evaluateAll((els) => els.map((e) => e.getAttribute('data-outcome')));
    assert.ok(outcomes.length >= 4 && outcomes.every((o) => o === 'PASS'), JSON.stringify(outcomes));
    assert.equal(await view.locator('.step.done').count(), 7, 'every phase done');
    assert.equal(await view.locator('.badge.state').innerText(), 'COMPLETE');
    assert.equal(await view.locator('.exit-reason').innerText(), 'every CRITICAL criterion verified PASS');
    // The waits are kept apart from the budget, and said so.
    assert.match(await view.locator('[data-budget="time"] .meter-note').innerText(), /^\+ \d+ s waiting for approval, not counted$/);
    await view.locator('button[data-action="rate"]').waitFor({ timeout: 10_000 });
    await workbench.screenshot('isc table of a finished run');

    // The run's edit is taken back (as Undo Run Changes would): every PASS that read the file is stale, and the header says so.
    writeFileSync(join(workbench.workspace, 'src', 'greet.js'), greetBefore);
    await view.locator('.row.stale[data-id="ISC-1"]').waitFor({ timeout: 30_000 });
    await view.locator('.badge.state', { hasText: 'STALE' }).waitFor({ timeout: 10_000 });
    await workbench.screenshot('isc table stale after the edit was taken back');

    // A reload forgets nothing: the marks are stored.
    await workbench.reloadWindow();
    view = await workbench.webview('ISC · Add a farewell', { timeoutMs: 60_000 });
    await view.locator('.row[data-id="ISC-1"]').waitFor({ timeout: 30_000 });
    await view.locator('.badge.state', { hasText: 'STALE' }).waitFor({ timeout: 20_000 });
    assert.deepEqual(await view.locator('.body .row').evaluateAll((els) => els.filter((e) => e.classList.contains('stale')).map((e) => e.dataset.id)), ['ISC-1', 'ISC-2', 'ISC-3', 'ISC-4', 'ISC-A-1']);
    assert.match(await view.locator('.score').innerText(), /^0 \/ 5 pass · 5 stale$/);
    await workbench.screenshot('isc table still stale after a reload');

    // Re-verified, ISC-1 FAILs: the header no longer claims every CRITICAL criterion passes.
    await view.locator('.row[data-id="ISC-1"]').hover();
    await view.locator('.row[data-id="ISC-1"] button[data-action="reverify"]').click();
    await view.locator('.row[data-id="ISC-1"] .c-outcome [data-outcome="FAIL"]').waitFor({ timeout: 30_000 });
    await view.locator('.badge.state', { hasText: 'FAILING' }).waitFor({ timeout: 10_000 });
    assert.equal(await view.locator('.row[data-id="ISC-1"]').evaluate((el) => el.classList.contains('stale')), false, 'a new verdict is fresh');
    const reason = await view.locator('.exit-reason').innerText();
    assert.doesNotMatch(reason, /every CRITICAL criterion verified PASS/);
    assert.match(reason, /ISC-1 does not pass now/);
    assert.match(await view.locator('.score').innerText(), /^0 \/ 5 pass · 4 stale$/);
    await workbench.screenshot('isc table header after a row failed');
  });

  it('keeps a long run whole: every row there, End reaches the last, filter and sort over all of them', async function () {
    this.timeout(240_000);
    const page = workbench.page;
    const COUNT = 150;
    // Most criteria pass on src/greet.js; every seventh asks for a line nobody wrote.
    const lines = Array.from({ length: COUNT }, (_, i) =>
      (i + 1) % 7 === 0 ? `- [ ] ISC-${i + 1}: Farewell number ${i + 1} is written somewhere | Verify: Grep: Farewell-${i + 1}-missing` : `- [ ] ISC-${i + 1}: Greeting number ${i + 1} says Hello to the user | Verify: Grep: Hello`,
    );
    const prd = `---\nprd: true\nid: PRD-20261122-long-run\nstatus: CRITERIA_DEFINED\neffort_level: FAST\ncreated: 2026-11-22\nupdated: 2026-11-22\niteration: 0\nmax_iterations: 1\n---\n\n# Long run of many greetings\n\n## Ideal State Criteria\n\n${lines.join('\n')}\n`;
    mkdirSync(join(workbench.workspace, '.ideal-state', 'prds'), { recursive: true });
    writeFileSync(join(workbench.workspace, '.ideal-state', 'prds', 'PRD-20261122-long-run.md'), prd);
    await workbench.runCommand('View: Close All Editors');
    await workbench.runCommand('Go to File...');
    await workbench.pickQuickPickItem('PRD-20261122-long-run.md');
    await page.locator('.monaco-editor .view-lines', { hasText: 'ISC-1:' }).first().waitFor({ timeout: 20_000 });
    await workbench.runCommand('Ideal State: Verify Criteria');
    await workbench.notifications({ containing: 'not passing', timeoutMs: 120_000 });

    await workbench.runCommand('Ideal State: Open ISC Table');
    await workbench.pickQuickPickItem('Long run of many greetings');
    let view = await workbench.webview('ISC · Long run');
    const rows = view.locator('.body .row');
    await view.locator(`.row[data-id="ISC-${COUNT}"]`).waitFor({ state: 'attached', timeout: 20_000 });
    assert.equal(await rows.count(), COUNT, 'every row is in the table, not just the first screen');
    assert.equal(await view.locator('.count').innerText(), `${COUNT} of ${COUNT} shown`);
    assert.equal(await view.locator('.row[data-id="ISC-7"] .c-outcome [data-outcome]').getAttribute('data-outcome'), 'FAIL');
    // Rows below the first screen start light (their words only) and are built whole while
    // the view is idle: soon every row has its cells.
    await view.locator('.body .row.light').first().waitFor({ state: 'detached', timeout: 10_000 });
    assert.equal(await view.locator(`.row[data-id="ISC-${COUNT - 2}"] .c-outcome [data-outcome]`).getAttribute('data-outcome'), 'PASS');
    await workbench.screenshot('isc table with many rows');

    // End goes to the last row, off screen until then, and shows it.
    await view.locator('.row[data-id="ISC-1"]').focus();
    await page.keyboard.press('End');
    assert.equal(await view.locator('.row:focus').getAttribute('data-id'), `ISC-${COUNT}`);
    const onScreen = (id) => view.locator(`.row[data-id="${id}"]`).evaluate((el) => {
      const box = el.getBoundingClientRect();
      return box.height > 0 && box.top >= -1 && box.bottom <= window.innerHeight + 1;
    });
    // (Rows off screen have an estimated height until laid out: the view settles within a frame or two.)
    const deadline = Date.now() + 5_000;
    while (!(await onScreen(`ISC-${COUNT}`))) {
      if (Date.now() > deadline) {
        const where = await view.locator(`.row[data-id="ISC-${COUNT}"]`).evaluate((el) => {
          const box = el.getBoundingClientRect();
          const page = document.scrollingElement;
          return { top: box.top, bottom: box.bottom, innerHeight: window.innerHeight, scrollTop: page?.scrollTop, scrollHeight: page?.scrollHeight, focused: document.activeElement?.getAttribute('data-id') };
        });
        assert.fail(`the last row is not scrolled into view: ${JSON.stringify(where)}`);
      }
      await page.waitForTimeout(50);
    }
    await page.keyboard.press('ArrowUp');
    assert.equal(await view.locator('.row:focus').getAttribute('data-id'), `ISC-${COUNT - 1}`);
    // Its buttons come with the focus; Enter opens its evidence.
    assert.equal(await view.locator(`.row[data-id="ISC-${COUNT - 1}"] button[data-action="reverify"]`).count(), 1);
    await page.keyboard.press('Enter');
    await view.locator(`.row[data-id="ISC-${COUNT - 1}"] a.loc[data-file="src/greet.js"]`).first().waitFor({ timeout: 10_000 });
    await workbench.screenshot('isc table with many rows at the end, evidence open');

    // Filter to FAIL across the whole run, then sort by id descending.
    view = await workbench.webview('ISC · Long run');
    await view.locator('select.filter-outcome').selectOption('FAIL');
    const failing = Array.from({ length: Math.floor(COUNT / 7) }, (_, i) => `ISC-${(i + 1) * 7}`);
    assert.deepEqual(await rows.evaluateAll((els) => els.map((e) => e.dataset.id)), failing);
    await view.locator('.head button.sort[data-sort="id"]').click();
    assert.deepEqual(await rows.evaluateAll((els) => els.map((e) => e.dataset.id)), [...failing].reverse());
    await view.locator('select.filter-outcome').selectOption('ALL');
    await view.locator('input.filter-text').fill('number 1');
    // The criteria whose number starts with 1, still by id descending.
    const expected = Array.from({ length: COUNT }, (_, i) => i + 1).filter((n) => `${n}`.startsWith('1')).map((n) => `ISC-${n}`).reverse();
    assert.deepEqual(await rows.evaluateAll((els) => els.map((e) => e.dataset.id)), expected);
    assert.equal(await view.locator('.count').innerText(), `${expected.length} of ${COUNT} shown`);
  });
  it('runs the header\'s own buttons: Re-verify all verifies every row again, Open PRD opens the file', async function () {
    this.timeout(240_000);
    const page = workbench.page;
    await workbench.runCommand('View: Close All Editors');
    await workbench.runCommand('Ideal State: Open ISC Table');
    await workbench.pickQuickPickItem('Table demo for greeting users');
    const view = await table();
    await view.locator('.row[data-id="ISC-3"]').waitFor({ timeout: 20_000 });
    await view.locator('.actions button[data-action="reverify-all"]').click();
    // The status line says what is under way, then the verifier's summary of all three rows.
    await view.locator('.status-line', { hasText: /^3 criteria: / }).waitFor({ timeout: 60_000 });
    assert.equal(await view.locator('.row[data-id="ISC-3"] .c-outcome [data-outcome]').getAttribute('data-outcome'), 'PASS', 'the CHANGELOG written earlier is found again');
    assert.equal(await view.locator('.row[data-id="ISC-2"] .c-outcome [data-outcome]').getAttribute('data-outcome'), 'FAIL');
    await view.locator('.actions button[data-action="open-prd"]').click();
    await page.locator('.tabs-container .tab', { hasText: 'PRD-20261122-table-demo.md' }).first().waitFor({ timeout: 15_000 });
    await workbench.screenshot('isc table header buttons re-verified and opened the PRD');
    assert.deepEqual(dialogs, [], 'nothing opened an alert');
  });
});
