import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useWorkbench } from './workbench-suite.mjs';

describe('a new PRD from the palette', () => {
  const workbench = useWorkbench({ trusted: true });

  it('asks for a title, an effort level and a template, then opens the new PRD', async () => {
    await workbench.runCommand('Ideal State: New PRD');
    await workbench.typeIntoInputBox('Dark mode for the settings page');

    const efforts = await workbench.quickPickRows();
    for (const level of ['INSTANT', 'STANDARD', 'COMPREHENSIVE']) assert.ok(efforts.some((row) => row.startsWith(level)), JSON.stringify(efforts));
    assert.ok(!efforts.some((row) => /^(QUICK|THOROUGH|TRIVIAL|DETERMINED)\b/.test(row)), `no aliases: ${JSON.stringify(efforts)}`);
    const active = await workbench.page.locator('.quick-input-widget .monaco-list-row.focused .label-name').first().innerText();
    assert.equal(active.trim(), 'STANDARD', 'STANDARD is preselected');
    await workbench.screenshot('new PRD effort level');
    await workbench.pickQuickPickItem('EXTENDED');

    await workbench.quickPickRow('No template').waitFor({ timeout: 15_000 });
    const templates = await workbench.quickPickItems();
    assert.equal(templates[0], 'No template', JSON.stringify(templates));
    assert.ok(templates.includes('code.feature'), JSON.stringify(templates));
    await workbench.pickQuickPickItem('code.feature');

    const tab = workbench.page.locator('.tabs-container .tab', { hasText: 'dark-mode-for-the-settings-page' });
    await tab.first().waitFor({ timeout: 15_000 });
    await workbench.page.locator('.monaco-editor .view-lines', { hasText: 'ISC-FEAT-001' }).first().waitFor({ timeout: 15_000 });
    const screenshot = await workbench.screenshot('new PRD open in an editor');
    assert.ok(existsSync(screenshot));

    const dir = join(workbench.workspace, '.ideal-state', 'prds');
    const [name] = readdirSync(dir).filter((n) => /^PRD-\d{8}-dark-mode-for-the-settings-page\.md$/.test(n));
    assert.ok(name, `files: ${readdirSync(dir).join(', ')}`);
    const text = readFileSync(join(dir, name), 'utf8');
    assert.match(text, /^---\nprd: true\n/);
    assert.match(text, /\neffort_level: EXTENDED\n/);
    assert.match(text, /\nmax_iterations: 3\n/);
    assert.match(text, /\n# Dark mode for the settings page\n/);
    assert.match(text, /\n- \[ \] ISC-FEAT-001: Requested behaviour works as described in the request \| Verify: /);
  });

  it('lists the linter findings of the open PRD in the Problems panel', async () => {
    await workbench.runCommand('Problems: Focus on Problems View');
    const panel = workbench.page.locator('.markers-panel');
    await panel.locator('.monaco-list-row', { hasText: 'isc-count' }).first().waitFor({ timeout: 15_000 });
    const rows = (await panel.locator('.monaco-list-row').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    // The shipped template's own criteria are clean; what is flagged is how few there are for EXTENDED.
    assert.ok(rows.some((r) => r.includes('Ideal State') && r.includes('isc-count')), JSON.stringify(rows));
    assert.ok(!rows.some((r) => /isc-(length|compound|action|scope-word)/.test(r)), `template criteria pass the linter: ${JSON.stringify(rows)}`);
    assert.ok(rows.some((r) => r.includes('isc-count') && r.includes('EXTENDED')), `12 criteria asked by EXTENDED: ${JSON.stringify(rows)}`);
    await workbench.screenshot('new PRD findings in the Problems panel');
  });
});
