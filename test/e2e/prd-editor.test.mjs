import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
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
  const workbench = useWorkbench({ trusted: true });
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
    for (const b of ['status DRAFT', 'effort FAST', 'iteration 0 / 1']) assert.ok(badges.includes(b), JSON.stringify(badges));
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

    // Keyboard: focus the row, Enter edits, typing replaces, Enter commits. The tick re-renders the
    // row: wait until the clicked row holds the focus before the key, as a person sees the focus ring.
    await row('ISC-FEAT-001').locator('td.id').click();
    await view.locator('tr[data-id="ISC-FEAT-001"]:focus, tr[data-id="ISC-FEAT-001"]:focus-within').waitFor({ timeout: 10_000 });
    await workbench.page.keyboard.press('Enter');
    const input = row('ISC-FEAT-001').locator('td.text input');
    await input.waitFor();
    await input.fill(NEW_TEXT);
    await input.press('Enter');
    await row('ISC-FEAT-001').locator('td.text', { hasText: NEW_TEXT }).waitFor({ timeout: 10_000 });

    // Escape cancels an edit; Arrow Down moves to the next row, where Enter edits it.
    await row('ISC-FEAT-001').locator('td.id').click();
    await workbench.page.keyboard.press('ArrowDown');
    await workbench.page.keyboard.press('Enter');
    await row('ISC-FEAT-002').locator('td.text input').fill('this text is thrown away');
    await row('ISC-FEAT-002').locator('td.text input').press('Escape');
    assert.equal(await row('ISC-FEAT-002').locator('td.text').innerText(), 'New behaviour is exercised by at least one automated test');
    await workbench.page.keyboard.press('Enter');
    await row('ISC-FEAT-002').locator('td.text input').fill(XSS);
    await row('ISC-FEAT-002').locator('td.text input').press('Enter');
    await row('ISC-FEAT-002').locator('td.text', { hasText: XSS }).waitFor({ timeout: 10_000 });

    // The criterion's markup-like text is shown as text and never becomes an element.
    assert.equal(await row('ISC-FEAT-002').locator('td.text').innerText(), XSS);
    assert.equal(await view.locator('img').count(), 0, 'no img element in the PRD editor');

    // A workbench chord pressed in the page is not a row key: Ctrl+P opens Quick Open, not "priority".
    await workbench.page.keyboard.press('Control+P');
    await workbench.page.locator('.quick-input-widget .quick-input-box input').waitFor();
    await workbench.page.keyboard.press('Escape');
    assert.equal(await row('ISC-FEAT-002').locator('td.priority').innerText(), 'CRITICAL');

    assert.equal(readFileSync(file, 'utf8'), original, 'nothing is written before saving');
    await row('ISC-FEAT-002').locator('td.id').click();
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
});
