import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO_SETTINGS } from '../harness/server.mjs';
import { answerApprovalNotification } from './approval-notifications.mjs';
import { useWorkbench } from './workbench-suite.mjs';

// A newcomer's second hour, off the README's script, in the real workbench with the sample's
// scripted demo model (as `npm start` sets it up): the first run twice, a lock after the run,
// the PRD editor from the keyboard, a loop with the demo model, Undo twice, a denial, three runs
// in a row. Each step asserts what the screen says (nothing that overstates, loses or hides)
// and is shot at the normal width and at a narrow one. Every wait is on a condition.

const REQUEST = 'Add a farewell(name) to src/greet.js that says Goodbye and refuses an empty name';
const TABLE = 'ISC · Add a farewell';
const NORMAL = { width: 1280, height: 800 };
const NARROW = { width: 640, height: 800 };
const DIALOG = '.monaco-dialog-box';

describe('the second hour: off the README\'s script, every screen tells the truth', () => {
  // Saving stays the person's: nothing may be written behind the PRD editor's back.
  const workbench = useWorkbench({ trusted: true, settings: { ...DEMO_SETTINGS, 'files.autoSave': 'off' } });
  const prdsDir = () => join(workbench.workspace, '.ideal-state', 'prds');
  const greet = () => readFileSync(join(workbench.workspace, 'src', 'greet.js'), 'utf8');
  const farewells = () => greet().split('export function farewell').length - 1;
  let greetBefore;
  let prdsBefore;
  let firstPrd;

  /** A screenshot at the normal width and one at a narrow width, each once the window has that size. */
  async function shoot(name) {
    const { page } = workbench;
    for (const [size, suffix] of [[NORMAL, ''], [NARROW, ' (narrow)']]) {
      await page.setViewportSize(size);
      await page.waitForFunction((w) => window.innerWidth === w && (document.querySelector('.part.editor')?.getBoundingClientRect().width ?? 0) < w, size.width, { timeout: 15_000 });
      // Two frames: the workbench lays out on resize, then paints.
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      await workbench.screenshot(`second hour ${name}${suffix}`);
    }
    await page.setViewportSize(NORMAL);
    await page.waitForFunction((w) => window.innerWidth === w, NORMAL.width, { timeout: 15_000 });
  }

  /** "Run Algorithm at Effort…" at STANDARD with the request the demo answers, no template. */
  async function startDemoRun() {
    await workbench.runCommand('Notifications: Clear All Notifications');
    await workbench.runCommand('Ideal State: Run Algorithm at Effort…');
    await workbench.pickQuickPickItem('STANDARD');
    await workbench.typeIntoInputBox(REQUEST);
    await workbench.quickPickRow('No template').waitFor({ timeout: 15_000 });
    await workbench.pickQuickPickItem('No template');
  }

  /** The end-of-run notification's text. */
  async function runEnd() {
    const texts = await workbench.notifications({ containing: 'Ideal State: run ', timeoutMs: 180_000 });
    const end = texts.find((t) => /Ideal State: run (complete|blocked|out of budget|failed|cancelled)/.test(t));
    assert.ok(end, JSON.stringify(texts));
    return end;
  }

  /** Undo Run Changes from the palette: the runs it offers, then Restore Files in its dialog. */
  async function undo() {
    await workbench.runCommand('Notifications: Clear All Notifications');
    await workbench.runCommand('Ideal State: Undo Run Changes');
    const offered = await workbench.quickPickRows();
    await workbench.pickQuickPickItem(REQUEST);
    const dialog = workbench.page.locator(DIALOG);
    await dialog.waitFor({ timeout: 30_000 });
    const asked = (await dialog.innerText()).replace(/\s+/g, ' ');
    await dialog.getByRole('button', { name: 'Restore Files' }).click();
    const restored = await workbench.notifications({ containing: 'restored to how they were before the run', timeoutMs: 60_000 });
    return { offered, asked, restored };
  }

  const newPrds = () => readdirSync(prdsDir()).filter((n) => !prdsBefore.includes(n));

  it('the first run: one question for its three verification commands, and "5 of 5 criteria pass"', async function () {
    this.timeout(300_000);
    greetBefore = greet();
    prdsBefore = readdirSync(prdsDir());
    await startDemoRun();
    await answerApprovalNotification(workbench, 'Edit src/greet.js', 'Approve', { timeoutMs: 120_000 });
    // The README says how many commands the first run asks to run: three, asked once, shown exactly.
    const asked = await workbench.notifications({ containing: 'verification command', timeoutMs: 120_000 });
    const question = asked.find((t) => t.includes('verification command'));
    assert.match(question, /Run 3 verification commands\?/, question);
    assert.equal(question.split('node -e').length - 1, 3, question);
    await answerApprovalNotification(workbench, 'verification command', 'Approve');
    assert.match(await runEnd(), /^Ideal State: run complete — 5 of 5 criteria pass\.$/);
    assert.equal(farewells(), 1);
    [firstPrd] = newPrds();
    assert.ok(firstPrd, 'the run wrote its PRD');
    await workbench.webview(TABLE, { timeoutMs: 30_000 });
    await shoot('first run complete');
  });

  it('the same run again on the finished workspace is refused before it starts, saying why and what to do', async function () {
    this.timeout(120_000);
    await startDemoRun();
    const said = await workbench.notifications({ containing: 'already holds the edit it makes', timeoutMs: 60_000 });
    const refusal = said.find((t) => t.includes('already holds the edit it makes'));
    assert.match(refusal, /src\/greet\.js already holds the edit it makes, from an earlier demo run\. To watch the demo again, /, refusal);
    assert.doesNotMatch(refusal, /schema|Unrecognized keys|THINK failed/);
    // Nothing was run: no second farewell, no second PRD.
    assert.equal(farewells(), 1);
    assert.deepEqual(newPrds(), [firstPrd]);
    await shoot('second demo run refused');
  });

  it('a lock after the run: the version the table shows, and no "before any work" probe on work already done', async function () {
    this.timeout(180_000);
    await workbench.runCommand('Notifications: Clear All Notifications');
    let table = await workbench.webview(TABLE, { timeoutMs: 30_000 });
    const subtitle = await table.locator('.subtitle').innerText();
    const version = /criteria v(\d+)/.exec(subtitle)?.[1];
    assert.ok(version, subtitle);
    await table.locator('.lock-head button', { hasText: 'Lock…' }).click();
    const dialog = workbench.page.locator(DIALOG);
    await dialog.waitFor({ timeout: 30_000 });
    const asked = (await dialog.innerText()).replace(/\s+/g, ' ');
    assert.match(asked, new RegExp(`Lock \\d+ criteria of \\.ideal-state/prds/${firstPrd.replace(/\./g, '\\.')}\\?`), asked);
    await dialog.getByRole('button', { name: 'Lock', exact: true }).click();
    // The table answers in its own status line, where the person clicked.
    table = await workbench.webview(TABLE);
    const line = table.getByText(/^Locked \.ideal-state\/prds\//);
    await line.waitFor({ timeout: 60_000 });
    const said = (await line.innerText()).replace(/\s+/g, ' ');
    assert.match(said, new RegExp(`\\(criteria version ${version}\\)`), `the lock says the version the table shows (v${version}): ${said}`);
    assert.match(said, /the work was done before the lock/, said);
    assert.doesNotMatch(said, /before any work/, said);
    const prd = readFileSync(join(prdsDir(), firstPrd), 'utf8');
    assert.doesNotMatch(prd, /Probe: passes before any work/, 'no false probe note in the PRD');
    await table.locator('.lock-badge[data-lock="locked"]').waitFor({ timeout: 30_000 });
    await shoot('locked after the run');
  });

  it('the PRD editor from the keyboard: letters change nothing, every control is explicit, no raw code shows', async function () {
    this.timeout(120_000);
    const { page } = workbench;
    await page.keyboard.press('Control+P');
    await page.locator('.quick-input-widget .quick-input-box input').fill(firstPrd);
    await workbench.quickPickRow(firstPrd).click({ timeout: 15_000 });
    await page.locator('.monaco-editor .view-lines', { hasText: 'status: COMPLETE' }).first().waitFor({ timeout: 15_000 });
    await workbench.runCommand('Ideal State: Open PRD Editor');
    const view = await workbench.webview(firstPrd.replace(/\.md$/, ''), { timeoutMs: 30_000 });
    const rows = view.locator('#criteria tr[data-id]');
    await rows.first().waitFor({ timeout: 15_000 });
    const badges = (await view.locator('header .meta .badge').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    assert.ok(badges.includes('status complete'), JSON.stringify(badges));
    assert.doesNotMatch(JSON.stringify(badges), /[A-Z]{3,}_[A-Z]+/, 'no raw code in the badges');
    assert.equal(await view.locator('button.add-criterion').count(), 1, '"Add criterion" is offered');
    const shown = () => rows.evaluateAll((all) => all.map((r) => r.innerText));
    const before = await shown();
    const text = readFileSync(join(prdsDir(), firstPrd), 'utf8');
    // Letters typed for another editor land here: no key alone ticks, edits or re-prioritises.
    await rows.first().locator('.criterion-text').click();
    await page.keyboard.type('xpPoO important ');
    await page.keyboard.press('Enter');
    // The page answers every key before the next frame: wait for two, then compare.
    await view.locator('body').evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    assert.deepEqual(await shown(), before, 'typed letters changed no row');
    await page.keyboard.press('Control+S');
    await page.locator('.tabs-container .tab.active:not(.dirty)').first().waitFor({ timeout: 15_000 });
    assert.equal(readFileSync(join(prdsDir(), firstPrd), 'utf8'), text, 'Ctrl+S wrote nothing that was not asked for');
    await shoot('PRD editor after keys');
  });

  it('a loop with the demo model is refused before it starts, with what to do instead', async function () {
    this.timeout(120_000);
    await workbench.runCommand('Notifications: Clear All Notifications');
    await workbench.runCommand('Ideal State: Run Algorithm over Files…');
    await workbench.typeIntoInputBox('README.md');
    await workbench.pickQuickPickItem('docs.page');
    await workbench.pickQuickPickItem('STANDARD');
    await workbench.typeIntoInputBox('1');
    const said = await workbench.notifications({ containing: 'cannot work the files of a loop', timeoutMs: 60_000 });
    const refusal = said.find((t) => t.includes('cannot work the files of a loop'));
    assert.match(refusal, /Choose a real model for loop mode/, refusal);
    // Nothing started: no loop PRD, no edit of the file, no matrix.
    assert.deepEqual(newPrds(), [firstPrd]);
    assert.equal(await workbench.page.locator('.tabs-container .tab', { hasText: 'Loop' }).count(), 0);
    await shoot('loop with the demo model refused');
  });

  it('Undo twice: the first restores the file and removes the run\'s PRD, the second offers nothing already undone', async function () {
    this.timeout(120_000);
    const first = await undo();
    assert.equal(first.offered.length, 1, JSON.stringify(first.offered));
    assert.match(first.asked, /src\/greet\.js/, first.asked);
    assert.equal(greet(), greetBefore, 'src/greet.js is back exactly as it was');
    assert.ok(!existsSync(join(prdsDir(), firstPrd)), 'the run\'s PRD is removed');
    await workbench.runCommand('Notifications: Clear All Notifications');
    await workbench.runCommand('Ideal State: Undo Run Changes');
    const none = await workbench.notifications({ containing: 'No run has changes left to undo', timeoutMs: 30_000 });
    assert.ok(none.some((t) => t.includes('No run has changes left to undo in this workspace.')), JSON.stringify(none));
    await shoot('undo twice');
  });

  it('a denial: the run ends "needs your approval" with the commands named, never out of budget', async function () {
    this.timeout(300_000);
    await startDemoRun();
    await answerApprovalNotification(workbench, 'Edit src/greet.js', 'Approve', { timeoutMs: 120_000 });
    await answerApprovalNotification(workbench, 'verification command', 'Deny', { timeoutMs: 120_000 });
    const end = await runEnd();
    assert.match(end, /^Ideal State: run blocked — /, end);
    assert.match(end, /needs your approval: `node -e /, end);
    assert.doesNotMatch(end, /budget/, end);
    // Asked once: the answered question is gone, and no second one asks for the same commands after the Deny.
    const texts = await workbench.notifications({ containing: 'Ideal State: run blocked' });
    assert.deepEqual(texts.filter((t) => t.includes('verification command')), [], JSON.stringify(texts));
    // The run's table says why in the run's words: the person's denial, not an agent giving up.
    const table = await workbench.webview(TABLE, { timeoutMs: 30_000 });
    await table.locator('.badge.state[data-state="BLOCKED"]').waitFor({ timeout: 30_000 });
    const reason = await table.locator('.exit-reason').innerText();
    assert.match(reason, /^needs your approval: /, reason);
    assert.doesNotMatch(reason, /agent said/, reason);
    await shoot('denied commands');
    const undone = await undo();
    assert.equal(undone.offered.length, 1, `only the denied run is offered: ${JSON.stringify(undone.offered)}`);
    assert.equal(greet(), greetBefore);
  });

  it('a third run in a row completes in the same editor group as the earlier tables', async function () {
    this.timeout(300_000);
    await startDemoRun();
    await answerApprovalNotification(workbench, 'Edit src/greet.js', 'Approve', { timeoutMs: 120_000 });
    await answerApprovalNotification(workbench, 'verification command', 'Approve', { timeoutMs: 120_000 });
    assert.match(await runEnd(), /^Ideal State: run complete — 5 of 5 criteria pass\.$/);
    await workbench.webview(TABLE, { timeoutMs: 30_000 });
    // Three runs, one group for their tables beside the editor: never a new narrow group per run.
    const groups = await workbench.page.locator('.part.editor .editor-group-container').count();
    assert.ok(groups <= 2, `${groups} editor groups after three runs`);
    const widths = await workbench.page.locator('.part.editor .editor-group-container').evaluateAll((all) => all.map((g) => g.getBoundingClientRect().width));
    assert.ok(widths.every((w) => w >= 400), `every group is readable: ${widths.join(', ')} px`);
    await shoot('three runs in a row');
  });
});
