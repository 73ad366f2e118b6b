import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO_SETTINGS } from '../harness/server.mjs';
import { useWorkbench } from './workbench-suite.mjs';

// Issue 28 §8: every webview readable with the editor area 400 px wide. A verified PRD with
// long criteria and a missing file gives the ISC table and the PRD editor something to wrap;
// each is shot at the normal width and at a narrow one, and the layout is measured in the page:
// no header over another, no one-character column, VERIFY and LEARN on screen, nothing cut.
const LONG = 'The greeting module keeps its documented behaviour for every caller, including the callers that pass names with accents and very long names';
const PRD = `---
prd: true
id: PRD-20261126-narrow-demo
status: CRITERIA_DEFINED
effort_level: FAST
created: 2026-11-26
updated: 2026-11-26
iteration: 0
max_iterations: 1
---

# Narrow layout demo with a long title that has to wrap somewhere in a narrow column

## Problem Space
The tables must stay readable in a narrow editor.

## Ideal State Criteria

- [ ] ISC-1: Greeting template in the source reads Hello with the name | Verify: Grep: Hello, \\$\\{name\\}!
- [ ] ISC-2: ${LONG} | Verify: Read: docs/a/very/long/path/that/does/not/exist/anywhere/in/this/workspace/GREETING-BEHAVIOUR.md
- [ ] ISC-3: The workspace ships a CHANGELOG file that describes its releases | Verify: Read: CHANGELOG.md
`;

/** Pairs of boxes that overlap by more than a pixel. */
function overlaps(boxes) {
  const out = [];
  for (let i = 0; i < boxes.length; i++)
    for (let j = i + 1; j < boxes.length; j++) {
      const [a, b] = [boxes[i], boxes[j]];
      if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1) out.push([a.name, b.name]);
    }
  return out;
}

describe('narrow layouts: every webview at 400 px', () => {
  const workbench = useWorkbench({ trusted: true, settings: DEMO_SETTINGS });

  async function narrow() {
    const { page } = workbench;
    const primary = () => page.evaluate(() => (document.querySelector('.part.sidebar')?.getBoundingClientRect().width ?? 0) > 0);
    if (await primary()) await workbench.runCommand('View: Close Primary Side Bar');
    // The chat's secondary side bar opens with the window: closed, as a person would, to give the editor the width.
    const secondary = () => page.evaluate(() => (document.querySelector('.part.auxiliarybar')?.getBoundingClientRect().width ?? 0) > 0);
    if (await secondary()) await workbench.runCommand('View: Toggle Secondary Side Bar Visibility');
    await page.keyboard.press('Escape');
    await page.setViewportSize({ width: 450, height: 800 });
    await page.waitForTimeout(800);
    const width = await page.evaluate(() => document.querySelector('.part.editor')?.getBoundingClientRect().width ?? 0);
    assert.ok(width > 300 && width <= 410, `the editor area is ${width} px wide`);
  }

  async function normal() {
    await workbench.page.setViewportSize({ width: 1280, height: 800 });
    await workbench.page.waitForTimeout(500);
  }

  it('the ISC table and the PRD editor: no overlapping headers, no squeezed column, VERIFY and LEARN on screen, reasons wrapped', async function () {
    this.timeout(240_000);
    const { page } = workbench;
    mkdirSync(join(workbench.workspace, '.ideal-state', 'prds'), { recursive: true });
    writeFileSync(join(workbench.workspace, '.ideal-state', 'prds', 'PRD-20261126-narrow-demo.md'), PRD);
    await workbench.runCommand('Go to File...');
    await workbench.pickQuickPickItem('PRD-20261126-narrow-demo.md');
    await page.locator('.monaco-editor .view-lines', { hasText: 'ISC-3' }).first().waitFor({ timeout: 20_000 });
    await workbench.runCommand('Ideal State: Verify Criteria');
    await workbench.notifications({ containing: 'not passing', timeoutMs: 60_000 });
    await workbench.runCommand('Notifications: Clear All Notifications');

    await workbench.runCommand('Ideal State: Open ISC Table');
    await workbench.pickQuickPickItem('Narrow layout demo with a long title that has to wrap somewhere in a narrow column');
    let table = await workbench.webview('ISC · Narrow layout');
    await table.locator('.body .row').nth(2).waitFor({ timeout: 20_000 });
    await workbench.runCommand('View: Close Other Editors in Group').catch(() => {});
    await workbench.screenshot('narrow isc table at normal width');

    await narrow();
    table = await workbench.webview('ISC · Narrow layout');
    await table.locator('.body .row').nth(2).waitFor({ timeout: 20_000 });
    await page.waitForTimeout(500);
    const shot = await workbench.screenshot('narrow isc table at 400 px');
    const facts = await table.locator('body').evaluate(() => {
      const box = (el, name) => {
        const r = el.getBoundingClientRect();
        return { name, left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width };
      };
      const visible = (el) => el.getBoundingClientRect().width > 0 && getComputedStyle(el).display !== 'none';
      const vw = document.documentElement.clientWidth;
      const heads = [...document.querySelectorAll('.criteria .head .cell')].filter(visible).map((el) => box(el, el.className));
      const steps = Object.fromEntries([...document.querySelectorAll('.stepper .step')].map((el) => [el.dataset.phase, box(el, el.dataset.phase)]));
      const texts = [...document.querySelectorAll('.criteria .row .c-text')].filter(visible).map((el) => el.getBoundingClientRect().width);
      const verify = [...document.querySelectorAll('.criteria .row .c-verify')].filter(visible).map((el) => ({ text: el.textContent, scroll: el.scrollWidth, client: el.clientWidth }));
      const reason = document.querySelector('.exit-reason');
      const cut = [...document.querySelectorAll('main *')].filter((el) => visible(el) && el.getBoundingClientRect().right > vw + 1 && !el.closest('.table-wrap')).map((el) => el.className || el.tagName);
      return { vw, heads, steps, texts, verify, reason: reason && { scroll: reason.scrollWidth, client: reason.clientWidth }, cut };
    });
    assert.ok(facts.vw <= 410, `the table is ${facts.vw} px wide`);
    assert.deepEqual(overlaps(facts.heads), [], JSON.stringify(facts.heads));
    for (const phase of ['VERIFY', 'LEARN']) assert.ok(facts.steps[phase] && facts.steps[phase].right <= facts.vw + 1 && facts.steps[phase].width > 20, `${phase} is on screen: ${JSON.stringify(facts.steps[phase])}`);
    assert.ok(facts.texts.length === 3 && facts.texts.every((w) => w >= 120), `criterion text cells: ${facts.texts}`);
    assert.equal(facts.verify.length, 3, 'each row shows how it is verified');
    for (const v of facts.verify) assert.ok(v.scroll <= v.client + 1, `the method wraps, never cut: ${JSON.stringify(v)}`);
    assert.ok(facts.verify.some((v) => v.text.includes('GREETING-BEHAVIOUR.md')), JSON.stringify(facts.verify));
    if (facts.reason) assert.ok(facts.reason.scroll <= facts.reason.client + 1, JSON.stringify(facts.reason));
    assert.deepEqual(facts.cut, [], 'nothing outside the table runs off the right edge');
    // The missing file's error in the expanded row wraps inside the table's width.
    await table.locator('.row[data-id="ISC-2"] .c-id').click();
    const evidence = table.locator('.row[data-id="ISC-2"] pre.evidence');
    await evidence.waitFor({ timeout: 10_000 });
    assert.match(await evidence.innerText(), /does not exist|not found|no such file/i);
    const pre = await evidence.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth, right: el.getBoundingClientRect().right, vw: document.documentElement.clientWidth }));
    assert.ok(pre.scroll <= pre.client + 1 && pre.right <= pre.vw + 1, JSON.stringify(pre));
    await workbench.screenshot('narrow isc table at 400 px with the error open');
    console.log(`      screenshot: ${shot}`);

    // The PRD editor of the same file, narrow.
    await normal();
    await workbench.runCommand('Go to File...');
    await workbench.pickQuickPickItem('PRD-20261126-narrow-demo.md');
    await workbench.runCommand('Ideal State: Open PRD Editor');
    let editor = await workbench.webview('PRD-20261126-narrow-demo');
    await editor.locator('tr[data-id="ISC-2"]').waitFor({ timeout: 15_000 });
    await workbench.runCommand('View: Close Other Editors in Group').catch(() => {});
    await workbench.screenshot('narrow prd editor at normal width');
    await narrow();
    editor = await workbench.webview('PRD-20261126-narrow-demo');
    await editor.locator('tr[data-id="ISC-2"]').waitFor({ timeout: 15_000 });
    await page.waitForTimeout(500);
    await workbench.screenshot('narrow prd editor at 400 px');
    const prd = await editor.locator('body').evaluate(() => {
      const visible = (el) => el.getBoundingClientRect().width > 0 && getComputedStyle(el).display !== 'none';
      const vw = document.documentElement.clientWidth;
      const heads = [...document.querySelectorAll('table.criteria th')].filter(visible).map((el) => {
        const r = el.getBoundingClientRect();
        return { name: el.textContent, left: r.left, right: r.right, top: r.top, bottom: r.bottom };
      });
      const row = document.querySelector('tr[data-id="ISC-2"]');
      const text = row.querySelector('td.text');
      const verify = row.querySelector('td.verify');
      const lineHeight = parseFloat(getComputedStyle(text).lineHeight) || 18;
      return {
        vw,
        heads,
        textWidth: text.getBoundingClientRect().width,
        // One character per line: a cell as tall as its characters; a card's text takes a few lines.
        textLines: Math.round(text.getBoundingClientRect().height / lineHeight),
        verify: { scroll: verify.scrollWidth, client: verify.clientWidth, right: verify.getBoundingClientRect().right },
      };
    });
    assert.ok(prd.vw <= 410, `the PRD editor is ${prd.vw} px wide`);
    assert.deepEqual(overlaps(prd.heads), [], JSON.stringify(prd.heads));
    assert.ok(prd.textWidth >= 200, `the criterion text is ${prd.textWidth} px wide`);
    assert.ok(prd.textLines <= 6, `the long criterion takes ${prd.textLines} lines`);
    assert.ok(prd.verify.scroll <= prd.verify.client + 1 && prd.verify.right <= prd.vw + 1, `the method wraps: ${JSON.stringify(prd.verify)}`);
    await normal();
  });
});
