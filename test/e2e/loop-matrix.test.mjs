import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../harness/paths.mjs';
import { answerApprovalNotification } from './approval-notifications.mjs';
import { useWorkbench } from './workbench-suite.mjs';

// Loop mode as a person uses it: "Run Algorithm over Files…" from the palette over the
// fixture's twelve pages (three hold a TODO), each prompt answered in its quick pick or input
// box, then the loop's matrix: twelve rows, the template's criteria as columns, the header
// "N/M artifacts passing · iteration k · budget", and "Failing only" leaving the three.
// No model is configured: the failing pages' sub-runs cannot work them, so each stays
// FAILING and unchanged; the matrix is what is under test here.

const FIXTURE = join(repoRoot, 'test', 'fixtures', 'loop-docs');

describe('the loop matrix, as a person uses it', () => {
  const workbench = useWorkbench({ trusted: true });

  it('runs the loop from the palette, shows the artifacts × criteria matrix, and filters it with “Failing only”', async function () {
    this.timeout(300_000);
    const page = workbench.page;
    cpSync(join(FIXTURE, 'pages'), join(workbench.workspace, 'loop-docs'), { recursive: true });
    mkdirSync(join(workbench.workspace, '.ideal-state', 'isc'), { recursive: true });
    cpSync(join(FIXTURE, 'loop.docs.yaml'), join(workbench.workspace, '.ideal-state', 'isc', 'loop.docs.yaml'));
    const before = Object.fromEntries(readdirSync(join(workbench.workspace, 'loop-docs')).map((n) => [n, readFileSync(join(workbench.workspace, 'loop-docs', n), 'utf8')]));

    await workbench.runCommand('Ideal State: Run Algorithm over Files…');
    // The glob box starts at docs/**/*.md and says how many files a glob matches.
    const input = page.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor();
    assert.equal(await input.inputValue(), 'docs/**/*.md');
    await input.fill('loop-docs/**/*.md');
    await page.locator('.quick-input-widget .quick-input-message', { hasText: '12 files match' }).waitFor({ timeout: 15_000 });
    await input.press('Enter');
    await workbench.quickPickRow('loop.docs').waitFor({ timeout: 15_000 });
    await workbench.pickQuickPickItem('loop.docs');
    await workbench.quickPickRow('FAST').waitFor({ timeout: 15_000 });
    await workbench.pickQuickPickItem('FAST');
    // The agents box refuses more than the level allows, with the range.
    await input.fill('9');
    await page.locator('.quick-input-widget .quick-input-message', { hasText: 'FAST allows 1 to 2 parallel agents' }).waitFor({ timeout: 15_000 });
    await workbench.typeIntoInputBox('2');

    // The matrix opens beside, and ends with the three TODO pages failing.
    const view = await workbench.webview('Loop ·', { timeoutMs: 60_000 });
    await view.locator('.badge.state[data-state="FAILED"]').waitFor({ timeout: 180_000 });
    assert.match(await view.locator('.summary').innerText(), /^9\/12 artifacts passing · iteration \d+ of \d+ · \d+% budget$/);
    assert.deepEqual(await view.locator('thead th.criterion').allInnerTexts(), ['ISC-LD-001', 'ISC-LD-002', 'ISC-A-LD-001']);
    assert.equal(await view.locator('tbody tr').count(), 12);
    assert.deepEqual(await view.locator('tbody tr[data-file="loop-docs/page-07.md"] td.cell').allInnerTexts(), ['PASS', 'PASS', 'FAIL']);

    await view.getByText('Failing only').click();
    await view.locator('tbody tr').nth(3).waitFor({ state: 'detached', timeout: 10_000 });
    assert.deepEqual(await view.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.dataset.file)), ['loop-docs/page-03.md', 'loop-docs/page-07.md', 'loop-docs/page-11.md']);
    await view.locator('.empty', { hasText: '9 passing artifacts hidden' }).waitFor({ timeout: 10_000 });
    // Every failing page keeps its own "Open run" (its sub-run's ISC table).
    assert.equal(await view.locator('tbody tr button.open-run').count(), 3);
    await workbench.runCommand('Notifications: Clear All Notifications');
    await workbench.screenshot('loop matrix failing only');

    // "Open run" opens that page's sub-run in its own ISC table.
    await view.locator('tbody tr[data-file="loop-docs/page-03.md"] button.open-run').click();
    await page.locator('.tabs-container .tab', { hasText: 'ISC · Make loop-docs/page-03.md' }).first().waitFor({ timeout: 15_000 });
    // Opening an artifact opens its file.
    const matrix = await workbench.webview('Loop ·');
    await matrix.locator('tbody tr[data-file="loop-docs/page-07.md"] button.open-file').click();
    await page.locator('.tabs-container .tab', { hasText: 'page-07.md' }).first().waitFor({ timeout: 15_000 });
    const after = Object.fromEntries(readdirSync(join(workbench.workspace, 'loop-docs')).map((n) => [n, readFileSync(join(workbench.workspace, 'loop-docs', n), 'utf8')]));
    assert.deepEqual(after, before, 'no page was changed: nothing could work them, and a failed attempt keeps the file');
  });

  it('shows a going loop in the status bar while it waits for a person; a click opens its matrix, whose Cancel stops it', async function () {
    this.timeout(300_000);
    const page = workbench.page;
    // A template whose check is a command: verifying the page asks first, so the loop is seen going while it waits.
    const template = [
      'artifactType: loop.asks',
      'version: 1.0.0',
      'description: A page checked by a command, which is asked for before it runs.',
      'minCriteria: 1',
      'scaleTier: SIMPLE',
      'idealCriteria:',
      '  - id: ISC-LA-001',
      '    text: ${name} is read by the Node.js runtime without error',
      '    priority: CRITICAL',
      '    source: EXPLICIT',
      '    domain: structure',
      '    verify: { type: CLI, command: "node --version" }',
      'antiCriteria:',
      '  - id: ISC-A-LA-001',
      '    text: No TODO placeholder remains in ${file}',
      '    priority: CRITICAL',
      '    source: IMPLICIT',
      '    domain: completeness',
      '    verify: { type: GREP, pattern: "TODO", expect: absent }',
      '',
    ].join('\n');
    writeFileSync(join(workbench.workspace, '.ideal-state', 'isc', 'loop.asks.yaml'), template);
    await workbench.runCommand('Notifications: Clear All Notifications');
    await workbench.runCommand('View: Close All Editors');

    await workbench.runCommand('Ideal State: Run Algorithm over Files…');
    const input = page.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor();
    await input.fill('loop-docs/page-01.md');
    await page.locator('.quick-input-widget .quick-input-message', { hasText: '1 file matches' }).waitFor({ timeout: 15_000 });
    await input.press('Enter');
    await workbench.quickPickRow('loop.asks').waitFor({ timeout: 30_000 });
    await workbench.pickQuickPickItem('loop.asks');
    await workbench.quickPickRow('FAST').waitFor({ timeout: 15_000 });
    await workbench.pickQuickPickItem('FAST');
    // The agents box is the one that answers for FAST (the widget is reused from the pick before it).
    await page.locator('.quick-input-widget .quick-input-title', { hasText: 'at FAST — agents' }).waitFor({ timeout: 15_000 });
    await workbench.typeIntoInputBox('1');

    // While the command waits for the person, the status bar says the loop goes, and how far it is.
    const texts = await workbench.statusBarTexts({ containing: 'Loop 0/1 passing', timeoutMs: 60_000 });
    assert.ok(texts.some((t) => /Loop 0\/1 passing · \d+% budget/.test(t)), texts.join(' | '));
    await page.locator('.part.statusbar .statusbar-item', { hasText: 'Loop 0/1 passing' }).first().click();
    const matrix = await workbench.webview('Loop ·', { timeoutMs: 30_000 });
    await matrix.locator('tbody tr[data-file="loop-docs/page-01.md"]').waitFor({ timeout: 15_000 });
    await workbench.screenshot('a going loop in the status bar and its matrix');

    // Denied, the command does not run: the criterion is UNKNOWN, never a pass. The loop goes on (the
    // failing page is worked, and its check asks again); the matrix's Cancel stops it and the status bar lets go.
    await answerApprovalNotification(workbench, 'verification command', 'Deny');
    // Its result acknowledged: the GREP passes, the denied command's criterion stays UNKNOWN.
    await matrix.locator('tbody tr[data-file="loop-docs/page-01.md"] td.cell[data-outcome="PASS"]').waitFor({ timeout: 60_000 });
    assert.deepEqual(await matrix.locator('tbody tr[data-file="loop-docs/page-01.md"] td.cell').allInnerTexts(), ['UNKNOWN', 'PASS']);
    // The matrix's own Cancel button.
    await matrix.getByRole('button', { name: 'Cancel' }).click();
    await page.locator('.part.statusbar .statusbar-item', { hasText: 'Loop 0/1 passing' }).first().waitFor({ state: 'detached', timeout: 60_000 });
    const ended = await workbench.webview('Loop ·');
    await ended.locator('.badge.state[data-state="CANCELLED"]').waitFor({ timeout: 60_000 });
    assert.deepEqual(await ended.locator('tbody tr[data-file="loop-docs/page-01.md"] td.cell').allInnerTexts(), ['UNKNOWN', 'PASS']);
  });
});
