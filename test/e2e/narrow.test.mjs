import assert from 'node:assert/strict';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../harness/paths.mjs';
import { DEMO_SETTINGS } from '../harness/server.mjs';
import { seedFinishedRuns } from './seed-finished-runs.mjs';
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

  const narrow = () => narrowEditor(workbench);

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

/**
 * Everything inside a webview's page that runs off its right edge, or is cut inside its own box
 * (more content than width while it does not scroll): names of the offenders. `allowScroll`:
 * selectors of boxes that scroll sideways on purpose (their content is measured inside them).
 */
function clippedIn(root, allowScroll = []) {
  const vw = document.documentElement.clientWidth;
  const visible = (el) => el.getBoundingClientRect().width > 0 && getComputedStyle(el).display !== 'none' && getComputedStyle(el).visibility !== 'hidden';
  const name = (el) => `${el.tagName.toLowerCase()}${el.className && typeof el.className === 'string' ? `.${el.className.trim().split(/\s+/).join('.')}` : ''}${el.textContent ? ` "${el.textContent.trim().slice(0, 30)}"` : ''}`;
  const out = [];
  if (document.documentElement.scrollWidth > vw + 1) out.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} > ${vw}`);
  for (const el of root.querySelectorAll('*')) {
    if (!visible(el) || el instanceof SVGElement || allowScroll.some((s) => el.closest(s))) continue;
    const r = el.getBoundingClientRect();
    if (r.right > vw + 1) out.push(`${name(el)} ends at ${Math.round(r.right)} > ${vw}`);
    const style = getComputedStyle(el);
    const scrolls = /auto|scroll/.test(style.overflowX);
    if (!scrolls && el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0 && style.display !== 'inline') out.push(`${name(el)} is cut: ${el.scrollWidth} > ${el.clientWidth}`);
  }
  return out;
}

describe('narrow layouts: the Ratings view after a rating, its chart whole', () => {
  const workbench = useWorkbench({ trusted: true });
  // A long request and a long comment, each with a word longer than the view (a path, a link).
  const REQUEST = 'Add a dark mode toggle to src/components/settings/DarkModeToggleWithPersistenceAcrossPageReloads.tsx and keep it in sync with the operating system theme';
  const COMMENT = 'it forgot my choice after a reload, see https://example.com/issues/dark-mode/toggle-forgets-the-choice-after-a-reload-on-every-page';

  it('shows "Rated 4/10" under the run it rated, wraps the long request and comment, and draws the chart inside the view, at the side bar\'s width and at 400 px', async function () {
    this.timeout(240_000);
    await workbench.runCommand('Ideal State: Show Store Info');
    const [message] = (await workbench.notifications({ containing: 'Ideal State store:' })).filter((t) => t.includes('Ideal State store:'));
    const file = /Ideal State store: (.+?) — schema/.exec(message)?.[1];
    assert.ok(file, message);
    await workbench.restart(async () => {
      await seedFinishedRuns(file, { pendingRequest: REQUEST });
    });
    const { page } = workbench;
    const activity = page.locator('.part.activitybar .action-item a[aria-label^="Ideal State"], .part.activitybar .action-item .action-label[aria-label^="Ideal State"]').first();
    await activity.waitFor({ timeout: 60_000 });
    await activity.click();
    // The Runs view folds away, as a person would, so the Ratings view has room for its chart.
    const runsHeader = page.locator('.part.sidebar .pane-header', { hasText: /^\s*Runs/ }).first();
    await runsHeader.waitFor({ timeout: 20_000 });
    if ((await runsHeader.getAttribute('aria-expanded')) === 'true') await runsHeader.click();
    await page.setViewportSize({ width: 1280, height: 1000 });

    let view = await workbench.sideBarWebview('.ask h2');
    assert.equal(await view.locator('.ask .request').innerText(), REQUEST);
    await view.getByRole('button', { name: 'Rate 4 of 10' }).click();
    const comment = view.getByRole('textbox', { name: 'Comment' });
    await comment.fill(COMMENT);
    await comment.press('Enter');
    await view.locator('.rated .status-line').waitFor({ timeout: 20_000 });
    await view.locator('svg.chart circle').nth(4).waitFor({ timeout: 20_000 });

    const measure = () =>
      view.locator('main.ratings').evaluate((root, clippedSource) => {
        // eslint-disable-next-line no-new-func
        const clipped = new Function(`return (${clippedSource})`)();
        const rect = (el) => { const r = el.getBoundingClientRect(); return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, height: r.height }; };
        const svg = root.querySelector('svg.chart');
        const box = root.querySelector('.chart-box');
        const inside = (a, b) => a.left >= b.left - 1 && a.right <= b.right + 1 && a.top >= b.top - 1 && a.bottom <= b.bottom + 1;
        const labels = [...svg.querySelectorAll('text, circle')].filter((el) => !inside(rect(el), rect(svg))).map((el) => el.textContent || el.tagName);
        return {
          vw: document.documentElement.clientWidth,
          rated: root.querySelector('.rated')?.innerText ?? '',
          // "Rated N/10" sits in the section of the run it rated, first in the view (never under the next question).
          first: root.firstElementChild?.className,
          svg: rect(svg),
          box: rect(box),
          svgInBox: inside(rect(svg), rect(box)),
          labels,
          cut: clipped(root, []),
        };
      }, clippedIn.toString());

    for (const width of ['side bar', 400]) {
      if (width === 400) {
        // The side bar dragged to 400 px wide by its sash, as a person would.
        const bar = await page.locator('.part.sidebar').boundingBox();
        await page.mouse.move(bar.x + bar.width + 1, bar.y + 300);
        await page.mouse.down();
        await page.mouse.move(bar.x + 400, bar.y + 300, { steps: 8 });
        await page.mouse.up();
        await page.waitForTimeout(500);
        view = await workbench.sideBarWebview('.rated .status-line');
      }
      // The pane is short (Reflections is under it): the view scrolls, and the chart shows whole once scrolled to.
      await view.locator('.chart-box svg').first().scrollIntoViewIfNeeded();
      const seen = await view.locator('.chart-box').evaluate((box) => {
        const r = box.getBoundingClientRect();
        return { top: r.top, bottom: r.bottom, height: window.innerHeight };
      });
      assert.ok(seen.top >= -1 && seen.bottom <= seen.height + 1, `the chart shows whole in the view: ${JSON.stringify(seen)}`);
      const shot = await workbench.screenshot(`narrow ratings view rated at ${width === 400 ? '400 px' : 'the side bar width'}`);
      const facts = await measure();
      console.log(`      screenshot: ${shot} (view ${facts.vw} px)`);
      if (width === 400) assert.ok(facts.vw >= 380 && facts.vw <= 410, `the view is ${facts.vw} px wide`);
      assert.equal(facts.first, 'rated', 'what the rating came to is first, above any next question');
      assert.match(facts.rated, /Rated 4\/10/);
      assert.ok(facts.rated.includes(REQUEST), `under the run it rated: ${facts.rated}`);
      assert.ok(facts.svgInBox, `the chart within its box: ${JSON.stringify([facts.svg, facts.box])}`);
      assert.ok(facts.svg.right <= facts.vw + 1 && facts.svg.height >= 60, `the chart is whole and readable: ${JSON.stringify(facts.svg)}`);
      assert.deepEqual(facts.labels, [], 'every label and point inside the chart');
      assert.deepEqual(facts.cut, [], 'nothing cut or off the right edge');
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});

describe('narrow layouts: the loop matrix at 400 px', () => {
  const workbench = useWorkbench({ trusted: true });

  it('wraps the title, the summary and a long artifact path, and keeps every cell readable', async function () {
    this.timeout(300_000);
    const { page } = workbench;
    // One failing page deep in long folders: a path wider than the view.
    const deep = join('loop-docs', 'a-very-long-folder-name-for-the-narrow-column', 'and-another-long-subfolder');
    mkdirSync(join(workbench.workspace, deep), { recursive: true });
    cpSync(join(repoRoot, 'test', 'fixtures', 'loop-docs', 'pages', 'page-03.md'), join(workbench.workspace, deep, 'page-03.md'));
    cpSync(join(repoRoot, 'test', 'fixtures', 'loop-docs', 'pages', 'page-01.md'), join(workbench.workspace, 'loop-docs', 'page-01.md'));
    mkdirSync(join(workbench.workspace, '.ideal-state', 'isc'), { recursive: true });
    cpSync(join(repoRoot, 'test', 'fixtures', 'loop-docs', 'loop.docs.yaml'), join(workbench.workspace, '.ideal-state', 'isc', 'loop.docs.yaml'));

    await workbench.runCommand('Ideal State: Run Algorithm over Files…');
    const input = page.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor();
    await input.fill('loop-docs/**/*.md');
    await page.locator('.quick-input-widget .quick-input-message', { hasText: /files? match/ }).waitFor({ timeout: 15_000 });
    await input.press('Enter');
    await workbench.quickPickRow('loop.docs').waitFor({ timeout: 15_000 });
    await workbench.pickQuickPickItem('loop.docs');
    await workbench.quickPickRow('FAST').waitFor({ timeout: 15_000 });
    await workbench.pickQuickPickItem('FAST');
    await page.locator('.quick-input-widget .quick-input-title', { hasText: 'at FAST — agents' }).waitFor({ timeout: 15_000 });
    await workbench.typeIntoInputBox('1');
    let view = await workbench.webview('Loop ·', { timeoutMs: 60_000 });
    await view.locator('.badge.state[data-state="FAILED"]').waitFor({ timeout: 180_000 });
    await workbench.runCommand('Notifications: Clear All Notifications');
    await workbench.runCommand('View: Close Other Editors in Group').catch(() => {});
    await workbench.screenshot('narrow loop matrix at normal width');

    await narrowEditor(workbench);
    view = await workbench.webview('Loop ·');
    await view.locator('tbody tr').nth(1).waitFor({ timeout: 20_000 });
    await page.waitForTimeout(500);
    const shot = await workbench.screenshot('narrow loop matrix at 400 px');
    console.log(`      screenshot: ${shot}`);
    const facts = await view.locator('main.loop-matrix').evaluate((root, clippedSource) => {
      // eslint-disable-next-line no-new-func
      const clipped = new Function(`return (${clippedSource})`)();
      const vw = document.documentElement.clientWidth;
      const wrap = root.querySelector('.table-wrap');
      // Lines a text is laid out on: a word squeezed to a letter a line shows as many.
      const lines = (el) => {
        const range = document.createRange();
        range.selectNodeContents(el);
        return new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size;
      };
      const cells = [...root.querySelectorAll('tbody td.cell, thead th')].map((el) => ({ text: el.textContent, width: el.getBoundingClientRect().width, scroll: el.scrollWidth, client: el.clientWidth, lines: lines(el) }));
      const statuses = [...root.querySelectorAll('tbody .artifact-status')].map((el) => ({ text: el.textContent, lines: lines(el) }));
      return {
        vw,
        // The matrix fits: no sideways scrolling needed to see a row's cells.
        table: { scroll: wrap.scrollWidth, client: wrap.clientWidth },
        artifact: root.querySelector('tbody th.artifact')?.getBoundingClientRect().width ?? 0,
        cells,
        statuses,
        cut: clipped(root, []),
      };
    }, clippedIn.toString());
    assert.ok(facts.vw <= 410, `the matrix is ${facts.vw} px wide`);
    assert.equal(facts.statuses.length, 2);
    for (const st of facts.statuses) assert.equal(st.lines, 1, `an artifact's status on one line, never a letter a line: ${JSON.stringify(st)}`);
    for (const c of facts.cells) assert.ok(c.text.startsWith('ISC-') ? c.lines <= 2 : c.lines === 1, `a header or outcome squeezed: ${JSON.stringify(c)}`);
    assert.ok(facts.table.scroll <= facts.table.client + 1, `every column on screen: ${JSON.stringify(facts.table)}`);
    assert.ok(facts.artifact >= 100, `the artifact column is ${facts.artifact} px wide`);
    for (const c of facts.cells) assert.ok(c.scroll <= c.client + 1, `a cell is cut: ${JSON.stringify(c)}`);
    assert.deepEqual(facts.cut, [], 'nothing cut or off the right edge');
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});

/** The editor area about 400 px wide: side bars closed, the window narrowed. */
async function narrowEditor(workbench) {
  const { page } = workbench;
  const primary = () => page.evaluate(() => (document.querySelector('.part.sidebar')?.getBoundingClientRect().width ?? 0) > 0);
  if (await primary()) await workbench.runCommand('View: Close Primary Side Bar');
  const secondary = () => page.evaluate(() => (document.querySelector('.part.auxiliarybar')?.getBoundingClientRect().width ?? 0) > 0);
  if (await secondary()) await workbench.runCommand('View: Toggle Secondary Side Bar Visibility');
  await page.keyboard.press('Escape');
  await page.setViewportSize({ width: 450, height: 800 });
  await page.waitForTimeout(800);
  const width = await page.evaluate(() => document.querySelector('.part.editor')?.getBoundingClientRect().width ?? 0);
  assert.ok(width > 300 && width <= 410, `the editor area is ${width} px wide`);
}
