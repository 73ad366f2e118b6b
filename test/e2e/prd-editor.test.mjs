import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { useWorkbench } from './workbench-suite.mjs';

const XSS = '<img src=x onerror=alert(1)>';
const NEW_TEXT = 'Requested behaviour works exactly as the request describes it';

/** Lines that differ between two texts of the same length in lines, as [index, before, after]. */
function changedLines(before, after) {
  const a = before.split('\n');
  const b = after.split('\n');
  assert.equal(b.length, a.length, 'no line added or removed');
  return a.flatMap((line, i) => (line === b[i] ? [] : [[i, line, b[i]]]));
}

describe('the PRD editor', () => {
  // Saving stays the person's: a test that checks nothing is written before Ctrl+S must not race an auto save.
  const workbench = useWorkbench({ trusted: true, settings: { 'files.autoSave': 'off' } });
  let file;
  let original;

  it('opens a new PRD from the palette in the PRD editor, with its criteria as a table', async () => {
    await workbench.runCommand('Ideal State: New PRD');
    await workbench.typeIntoInputBox('Webview editing');
    await workbench.pickQuickPickItem('FAST');
    await workbench.quickPickRow('No template').waitFor({ timeout: 15_000 });
    await workbench.pickQuickPickItem('code.feature');
    await workbench.page.locator('.monaco-editor .view-lines', { hasText: 'ISC-FEAT-001' }).first().waitFor({ timeout: 15_000 });
    const dir = join(workbench.workspace, '.ideal-state', 'prds');
    const name = readdirSync(dir).find((n) => /^PRD-\d{8}-webview-editing\.md$/.test(n));
    assert.ok(name, readdirSync(dir).join(', '));
    file = join(dir, name);
    original = readFileSync(file, 'utf8');

    await workbench.runCommand('View: Toggle Secondary Side Bar Visibility');
    await workbench.runCommand('Ideal State: Open PRD Editor');
    const view = await workbench.webview(name.replace(/\.md$/, ''));
    await view.locator('tr[data-id="ISC-FEAT-001"]').waitFor({ timeout: 15_000 });
    assert.equal(await view.locator('h1').innerText(), 'Webview editing');
    const badges = (await view.locator('header .meta .badge').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    for (const b of ['status draft', 'effort FAST', 'iteration 0 / 1']) assert.ok(badges.includes(b), JSON.stringify(badges));
    const ids = await view.locator('#criteria tr[data-id]').evaluateAll((rows) => rows.map((r) => r.dataset.id));
    assert.deepEqual(ids.slice(0, 3), ['ISC-FEAT-001', 'ISC-FEAT-002', 'ISC-FEAT-003']);
    assert.ok((await view.locator('#anti-criteria tr[data-id]').count()) > 0, 'anti-criteria listed');
    assert.equal(await view.locator('tr[data-id="ISC-FEAT-005"] td.priority').innerText(), 'IMPORTANT');
    assert.equal(await view.locator('tr[data-id="ISC-FEAT-002"] td.verify').innerText(), 'Test: test');
  });

  it('ticks a criterion and edits texts from the mouse and keyboard; saving writes exactly those lines', async () => {
    const view = await workbench.webview('webview-editing');
    const row = (id) => view.locator(`tr[data-id="${id}"]`);

    await row('ISC-FEAT-001').locator('input[type=checkbox]').click();
    await view.locator('tr[data-id="ISC-FEAT-001"].done').waitFor({ timeout: 10_000 });

    // Keyboard: Tab-reachable controls only. The ✎ button takes Enter and opens the text box;
    // typing replaces, Enter commits. The tick re-rendered the row: wait until it shows.
    await row('ISC-FEAT-001').locator('button.edit').focus();
    await workbench.page.keyboard.press('Enter');
    const input = row('ISC-FEAT-001').locator('td.text input');
    await input.waitFor();
    await input.fill(NEW_TEXT);
    await input.press('Enter');
    await row('ISC-FEAT-001').locator('.criterion-text', { hasText: NEW_TEXT }).waitFor({ timeout: 10_000 });

    // Escape cancels an edit, and the focus goes back to the ✎ button, where Space edits again.
    await row('ISC-FEAT-002').locator('button.edit').focus();
    await workbench.page.keyboard.press('Space');
    await row('ISC-FEAT-002').locator('td.text input').fill('this text is thrown away');
    await row('ISC-FEAT-002').locator('td.text input').press('Escape');
    assert.equal(await row('ISC-FEAT-002').locator('.criterion-text').innerText(), 'New behaviour is exercised by at least one automated test');
    await view.locator('tr[data-id="ISC-FEAT-002"] button.edit:focus').waitFor({ timeout: 10_000 });
    await workbench.page.keyboard.press('Space');
    await row('ISC-FEAT-002').locator('td.text input').fill(XSS);
    await row('ISC-FEAT-002').locator('td.text input').press('Enter');
    await row('ISC-FEAT-002').locator('.criterion-text', { hasText: XSS }).waitFor({ timeout: 10_000 });

    // The criterion's markup-like text is shown as text and never becomes an element.
    assert.equal(await row('ISC-FEAT-002').locator('.criterion-text').innerText(), XSS);
    assert.equal(await view.locator('img').count(), 0, 'no img element in the PRD editor');

    // A check box takes Space from the keyboard: ticked, then unticked again (no change in the end).
    await row('ISC-FEAT-003').locator('input[type=checkbox]').focus();
    await workbench.page.keyboard.press('Space');
    await view.locator('tr[data-id="ISC-FEAT-003"].done').waitFor({ timeout: 10_000 });
    await view.locator('tr[data-id="ISC-FEAT-003"] input[type=checkbox]:focus').waitFor({ timeout: 10_000 });
    await workbench.page.keyboard.press('Space');
    await view.locator('tr[data-id="ISC-FEAT-003"]:not(.done)').waitFor({ timeout: 10_000 });

    // Letters typed while the editor has the focus but no control does (text meant for another
    // editor) change nothing: no key on the page ticks, edits or re-prioritises a criterion.
    const shown = async () => view.locator('#criteria tr[data-id]').evaluateAll((rows) => rows.map((r) => r.innerText));
    const before = await shown();
    await row('ISC-FEAT-001').locator('.criterion-text').click();
    await workbench.page.keyboard.type('pPoO important ');
    await workbench.page.keyboard.press('Enter');
    await workbench.page.waitForTimeout(1_000);
    assert.deepEqual(await shown(), before, 'typed letters changed no row');

    // A workbench chord pressed in the page is the workbench's: Ctrl+P opens Quick Open.
    await workbench.page.keyboard.press('Control+P');
    await workbench.page.locator('.quick-input-widget .quick-input-box input').waitFor();
    await workbench.page.keyboard.press('Escape');
    assert.equal(await row('ISC-FEAT-002').locator('td.priority').innerText(), 'CRITICAL');

    assert.equal(readFileSync(file, 'utf8'), original, 'nothing is written before saving');
    await row('ISC-FEAT-002').locator('.criterion-text').click();
    await workbench.page.keyboard.press('Control+S');
    const deadline = Date.now() + 15_000;
    while (readFileSync(file, 'utf8') === original && Date.now() < deadline) await workbench.page.waitForTimeout(200);
    const saved = readFileSync(file, 'utf8');
    const changes = changedLines(original, saved);
    assert.deepEqual(
      changes.map(([, before, after]) => [before.slice(0, 19), after]),
      [
        ['- [ ] ISC-FEAT-001:', `- [x] ISC-FEAT-001: ${NEW_TEXT} | Verify: Custom: Compare the change against each stated requirement`],
        ['- [ ] ISC-FEAT-002:', `- [ ] ISC-FEAT-002: [I] ${XSS} | Verify: Test: test`],
      ],
    );
    await workbench.screenshot('PRD editor after editing');
  });

  it('reopens the sample PRD with "Reopen Editor With…", showing decisions and the log', async () => {
    await workbench.page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'PRD-20261121-greeting.md' }).first().click();
    await workbench.page.locator('.monaco-editor .view-lines', { hasText: 'Greeting function' }).first().waitFor({ timeout: 15_000 });
    await workbench.runCommand('View: Reopen Editor With...');
    await workbench.pickQuickPickItem('Ideal State PRD');
    const view = await workbench.webview('PRD-20261121-greeting');
    await view.locator('tr[data-id="ISC-GREET-001"]').waitFor({ timeout: 15_000 });
    assert.match(await view.locator('#decisions').innerText(), /Reject a missing name instead of greeting "World"/);
    assert.match(await view.locator('#log').innerText(), /Iteration 0 — 2026-11-21/);
    assert.deepEqual(await view.locator('#criteria tr.domain').allInnerTexts(), ['Behaviour', 'Packaging']);
    await workbench.screenshot('PRD editor on the sample PRD, light theme');

    await workbench.runCommand('Preferences: Color Theme');
    await workbench.pickQuickPickItem('Dark Modern');
    await workbench.page.locator('.monaco-workbench.vs-dark').waitFor({ timeout: 15_000 });
    const dark = await workbench.webview('PRD-20261121-greeting');
    await dark.locator('body.vscode-dark').waitFor({ timeout: 15_000 });
    await workbench.screenshot('PRD editor on the sample PRD, dark theme');
  });

  it('shows the Not approved and Probe notes under their criterion, in words, at normal width and at 400 px', async () => {
    const dir = join(workbench.workspace, '.ideal-state', 'prds');
    writeFileSync(join(dir, 'PRD-20261128-notes-demo.md'), NOTES_PRD);
    await openInPrdEditor(workbench, 'PRD-20261128-notes-demo.md');
    const view = await workbench.webview('PRD-20261128-notes-demo');
    await view.locator('tr[data-id="ISC-2"]').waitFor({ timeout: 15_000 });
    const notes = await view.locator('tr[data-id="ISC-2"] ul.notes li').allInnerTexts();
    assert.deepEqual(notes, [`Not approved: ${DENIED}`, `Probe: ${PROBE}`]);
    assert.equal(await view.locator('tr[data-id="ISC-1"] ul.notes').count(), 0, 'a criterion without notes shows none');
    const badges = (await view.locator('header .meta .badge').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    assert.ok(badges.includes('status out of budget'), JSON.stringify(badges));
    assert.doesNotMatch(await view.locator('body').innerText(), /BUDGET_EXHAUSTED/);
    await workbench.screenshot('PRD editor notes at normal width');
    try {
      // The editor area about 400 px wide, as narrow.test.mjs makes it: no side bar beside it.
      const { page } = workbench;
      if (await page.evaluate(() => (document.querySelector('.part.sidebar')?.getBoundingClientRect().width ?? 0) > 0)) await workbench.runCommand('View: Close Primary Side Bar');
      await page.setViewportSize({ width: 450, height: 800 });
      await page.waitForTimeout(800);
      const area = await page.evaluate(() => document.querySelector('.part.editor')?.getBoundingClientRect().width ?? 0);
      assert.ok(area > 300 && area <= 410, `the editor area is ${area} px wide`);
      const narrow = await workbench.webview('PRD-20261128-notes-demo');
      await narrow.locator('tr[data-id="ISC-2"] ul.notes').waitFor({ timeout: 15_000 });
      const width = await narrow.locator('tr[data-id="ISC-2"] ul.notes').evaluate((el) => el.getBoundingClientRect().width);
      assert.ok(width >= 200, `the notes are ${width} px wide at 400 px`);
      await workbench.screenshot('PRD editor notes at 400 px');
    } finally {
      await workbench.page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('an empty PRD offers "Add criterion", which adds a line under the next free id', async () => {
    const dir = join(workbench.workspace, '.ideal-state', 'prds');
    const path = join(dir, 'PRD-20261128-empty-demo.md');
    writeFileSync(path, EMPTY_PRD);
    await openInPrdEditor(workbench, 'PRD-20261128-empty-demo.md');
    const view = await workbench.webview('PRD-20261128-empty-demo');
    const add = view.locator('#criteria button.add-criterion');
    await add.waitFor({ timeout: 15_000 });
    assert.match(await view.locator('#criteria').innerText(), /None yet/);
    await add.click();
    const box = view.locator('#criteria .add input[type=text]');
    await box.waitFor();
    assert.ok(await box.evaluate((el) => el === document.activeElement), 'the new criterion\'s box has the focus for typing');
    await workbench.page.keyboard.type(ADDED);
    await workbench.page.keyboard.press('Enter');
    await view.locator('tr[data-id="ISC-1"] .criterion-text', { hasText: ADDED }).waitFor({ timeout: 10_000 });
    await view.locator('#criteria button.add-criterion:focus').waitFor({ timeout: 10_000 });
    await workbench.screenshot('PRD editor after Add criterion');
    await workbench.page.keyboard.press('Control+S');
    const deadline = Date.now() + 15_000;
    while (readFileSync(path, 'utf8') === EMPTY_PRD && Date.now() < deadline) await workbench.page.waitForTimeout(200);
    const lines = changedOrAdded(EMPTY_PRD, readFileSync(path, 'utf8'));
    assert.deepEqual(lines, [`- [ ] ISC-1: ${ADDED}`]);
  });
});

const DENIED = 'a person denied this command on 2026-11-26; it will not run until someone approves it';
const PROBE = 'passes before any work — can this check fail? (2026-11-26)';
const ADDED = 'The farewell refuses an empty name with an error';
const NOTES_PRD = `---
prd: true
id: PRD-20261128-notes-demo
status: BUDGET_EXHAUSTED
effort_level: FAST
iteration: 1
max_iterations: 1
---

# Notes demo

## Ideal State Criteria

- [x] ISC-1: Greeting template in the source reads Hello with the name | Verify: Grep: Hello
- [ ] ISC-2: Farewell refuses an empty name with a clear error | Verify: CLI: node -e "process.exit(1)"
  - Not approved (sha256:1a2b3c4d5e6f): ${DENIED}
  - Probe: ${PROBE}
`;
const EMPTY_PRD = `---
prd: true
id: PRD-20261128-empty-demo
status: DRAFT
effort_level: FAST
---

# Empty demo

## Ideal State Criteria

## LOG
`;

/** Lines of `after` that `before` does not hold. */
function changedOrAdded(before, after) {
  const had = new Set(before.split('\n'));
  return after.split('\n').filter((l) => !had.has(l));
}

async function openInPrdEditor(workbench, name) {
  // Quick Open's file search may not list a file written a moment ago: once more after a pause.
  for (let attempt = 1; ; attempt++) {
    await workbench.runCommand('Go to File...');
    try {
      await workbench.pickQuickPickItem(name);
      break;
    } catch (error) {
      if (attempt >= 3) throw error;
      await workbench.page.keyboard.press('Escape');
      await workbench.page.waitForTimeout(2_000);
    }
  }
  await workbench.page.locator('.monaco-editor .view-lines').first().waitFor({ timeout: 15_000 });
  await workbench.runCommand('Ideal State: Open PRD Editor');
}
