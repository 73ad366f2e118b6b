import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answerApprovalNotification } from './approval-notifications.mjs';
import { useWorkbench } from './workbench-suite.mjs';

// The criteria lock from the ISC table (issue 23), as a person uses it in the real workbench:
// the lock is offered when the run's criteria are first shown, Lock asks in a modal, the
// badge says Locked; the agent's edit of the PRD makes the row TAMPERED with Approve and
// Revert on it; Revert puts the line back, Approve (a modal with the diff) makes the next
// criteria version. The lock goes to a state folder of the test's own (IDEAL_STATE_STATE_DIR),
// never the real home.

const DEMO = 'PRD-20261122-verify-demo.md';
const DIALOG = '.monaco-dialog-box';
const LOCKED_LINE = 'ISC-DEMO-004: A changelog file at the top level records the releases | Verify: Task: check: changelog exists';
const CHEAT_LINE = 'ISC-DEMO-004: [NICE] A changelog file may exist | Verify: CLI: node --version';

describe('the criteria lock in the ISC table, as a person uses it', () => {
  const state = mkdtempSync(join(tmpdir(), 'ideal-state-e2e-lock-'));
  const workbench = useWorkbench({ trusted: true, env: { IDEAL_STATE_STATE_DIR: state } });
  const prdFile = () => join(workbench.workspace, '.ideal-state', 'prds', DEMO);
  const lockFile = () => {
    const [folder] = readdirSync(state);
    return folder ? join(state, folder, 'criteria-lock.json') : '';
  };

  it('locks from the offer, shows a TAMPERED row after the PRD is edited, and Revert and Approve work from the row', async function () {
    this.timeout(360_000);
    const { page } = workbench;

    // A verification of the demo PRD is a run with criteria; its table is where the lock is offered.
    await page.keyboard.press('Control+P');
    await page.locator('.quick-input-widget .quick-input-box input').fill(DEMO);
    await workbench.quickPickRow(DEMO).click({ timeout: 15_000 });
    await page.locator('.monaco-editor .view-lines', { hasText: 'ISC-DEMO-001' }).first().waitFor({ timeout: 15_000 });
    await workbench.runCommand('Ideal State: Verify Criteria');
    const asked = page.locator(DIALOG);
    await asked.waitFor({ timeout: 30_000 });
    await asked.getByRole('button', { name: 'Run Them' }).click();
    await workbench.notifications({ containing: 'not passing', timeoutMs: 90_000 });
    await workbench.runCommand('Notifications: Clear All Notifications');
    await workbench.runCommand('Ideal State: Open ISC Table');
    await workbench.pickQuickPickItem('Verify demo');
    let table = await workbench.webview('ISC · Verify demo', { timeoutMs: 30_000 });
    await table.locator('.lock-badge[data-lock="not-locked"]').waitFor({ timeout: 30_000 });
    assert.deepEqual((await table.locator('.lock-head button').allInnerTexts()).map((t) => t.trim()), ['Lock…']);

    // The offer (a notification, not modal): Lock → the modal shows what is locked → Lock.
    await answerApprovalNotification(workbench, 'Lock these criteria so the agent cannot change them?', 'Lock');
    await asked.waitFor({ timeout: 30_000 });
    const shownLock = (await asked.innerText()).replace(/\s+/g, ' ');
    assert.match(shownLock, /Lock 7 criteria of \.ideal-state\/prds\/PRD-20261122-verify-demo\.md\?/, shownLock);
    assert.match(shownLock, /ISC-DEMO-004: \[CRITICAL\] A changelog file/, shownLock);
    assert.match(shownLock, /inputs their verification depends on: .*check: changelog exists/, shownLock);
    await workbench.screenshot('lock dialog from the isc table offer');
    await asked.getByRole('button', { name: 'Lock', exact: true }).click();
    table = await workbench.webview('ISC · Verify demo');
    await table.locator('.lock-badge[data-lock="locked"]').waitFor({ timeout: 30_000 });
    const lock = JSON.parse(readFileSync(lockFile(), 'utf8'));
    assert.deepEqual(lock.prds.map((p) => [p.path, p.version, p.how]), [[`.ideal-state/prds/${DEMO}`, 1, 'editor']]);
    // The person sees that the done gate holds an agent to this PRD, and why.
    assert.match(await table.locator('.lock-held').textContent(), /^The done gate holds an agent to this PRD: locked by .+ on \d{4}-\d\d-\d\d, criteria version 1\.$/);
    await workbench.screenshot('isc table locked badge');

    // The agent re-labels and re-verifies the failing criterion: its row is TAMPERED, with Approve and Revert.
    const locked = readFileSync(prdFile(), 'utf8');
    assert.ok(locked.includes(LOCKED_LINE));
    writeFileSync(prdFile(), locked.replace(LOCKED_LINE, CHEAT_LINE));
    await table.locator('.lock-badge[data-lock="tampered"]').waitFor({ timeout: 30_000 });
    const row = table.locator('.row.tampered[data-id="ISC-DEMO-004"]');
    await row.waitFor({ timeout: 15_000 });
    assert.equal(await row.locator('.c-outcome [data-outcome]').getAttribute('data-outcome'), 'TAMPERED');
    // Text content: a row off screen is not rendered (content-visibility), so it has no innerText.
    assert.deepEqual((await row.locator('.lock-row-actions button').allTextContents()).map((t) => t.trim()), ['Approve', 'Revert']);
    assert.match(await row.locator('.lock-diff').textContent(), /- ISC-DEMO-004: \[CRITICAL\] A changelog file at the top level records the releases \| Verify: Task: check: changelog exists/);
    await row.scrollIntoViewIfNeeded();
    await workbench.screenshot('isc table tampered row');

    // Revert: the locked line is back in the PRD, every other byte as it was; the badge is Locked again.
    await row.getByRole('button', { name: 'Revert ISC-DEMO-004' }).click();
    await table.locator('.lock-badge[data-lock="locked"]').waitFor({ timeout: 30_000 });
    assert.equal(readFileSync(prdFile(), 'utf8'), locked);
    await workbench.screenshot('isc table after revert');

    // Approve: the modal shows the diff; approved, the PRD is criteria version 2 and its LOG says who and how.
    writeFileSync(prdFile(), locked.replace(LOCKED_LINE, CHEAT_LINE));
    const again = table.locator('.row.tampered[data-id="ISC-DEMO-004"]');
    await again.waitFor({ timeout: 30_000 });
    await again.getByRole('button', { name: 'Approve ISC-DEMO-004' }).click();
    await asked.waitFor({ timeout: 30_000 });
    const shownDiff = (await asked.innerText()).replace(/\s+/g, ' ');
    assert.match(shownDiff, /Approve 2 changes to locked criteria\?/, shownDiff);
    assert.match(shownDiff, /the task check: changelog exists was deleted/, shownDiff);
    assert.match(shownDiff, /- ISC-DEMO-004: \[CRITICAL\] A changelog file at the top level/, shownDiff);
    assert.match(shownDiff, /\+ ISC-DEMO-004: \[NICE\] A changelog file may exist \| Verify: CLI: node --version/, shownDiff);
    await workbench.screenshot('approve dialog with the diff');
    await asked.getByRole('button', { name: 'Approve', exact: true }).click();
    await table.locator('.lock-badge[data-lock="locked"]').waitFor({ timeout: 30_000 });
    assert.match(await table.locator('.lock-head').innerText(), /criteria v2/);
    const approved = JSON.parse(readFileSync(lockFile(), 'utf8'));
    assert.equal(approved.prds[0].version, 2);
    assert.match(readFileSync(prdFile(), 'utf8'), /Criteria changes approved by .+ in the editor at /);
    await workbench.screenshot('isc table after approve');
  });

  it("shows a criteria proposal an agent left waiting, with its exact line; Review… adds it on the person's yes", async function () {
    this.timeout(240_000);
    const { page } = workbench;
    // What ideal-state mcp leaves for a person when its client cannot ask one (src/app/proposals.ts), beside the lock.
    const [folder] = readdirSync(state);
    const line = 'The changelog names the release date of each version';
    writeFileSync(
      join(state, folder, 'pending-proposals.json'),
      JSON.stringify({ version: 1, proposals: [{ id: 'a1b2c3d4e5f6', prd: `.ideal-state/prds/${DEMO}`, criteria: [{ text: line, verify: 'Grep: released on' }], proposedAt: new Date().toISOString(), client: 'an-agent' }] }),
    );
    // Any change in the workspace makes the table read the lock and the proposals again.
    writeFileSync(join(workbench.workspace, 'README.md'), `${readFileSync(join(workbench.workspace, 'README.md'), 'utf8')}\n`);
    const table = await workbench.webview('ISC · Verify demo');
    const proposal = table.locator('.proposal[data-proposal="a1b2c3d4e5f6"]');
    await proposal.waitFor({ timeout: 30_000 });
    assert.match((await proposal.textContent()).replace(/\s+/g, ' '), /Waiting for you Proposal a1b2c3d4e5f6 from the MCP client "an-agent".*\+ - \[ \] ISC-DEMO-\d+: \[I\] The changelog names the release date of each version \| Verify: Grep: released on/);
    await proposal.scrollIntoViewIfNeeded();
    await workbench.screenshot('isc table a proposal waiting for the person');
    await proposal.getByRole('button', { name: 'Review…' }).click();
    const asked = page.locator(DIALOG);
    await asked.waitFor({ timeout: 30_000 });
    assert.match((await asked.innerText()).replace(/\s+/g, ' '), /Add this criterion an agent proposed to .*PRD-20261122-verify-demo\.md as criteria version \d+\?/);
    await asked.getByRole('button', { name: 'Add Criteria' }).click();
    await proposal.waitFor({ state: 'detached', timeout: 30_000 });
    assert.match(readFileSync(prdFile(), 'utf8'), /ISC-DEMO-\d+: \[I\] The changelog names the release date of each version \| Verify: Grep: released on/);
    assert.match(readFileSync(prdFile(), 'utf8'), /accepted by a person in the editor/);
    assert.deepEqual(JSON.parse(readFileSync(join(state, folder, 'pending-proposals.json'), 'utf8')).proposals, []);
  });

  it('Lock Criteria from the palette locks the PRD open in the editor, alone, naming its CRITICAL criterion the gate cannot decide', async function () {
    this.timeout(180_000);
    const { page } = workbench;
    const GREETING = 'PRD-20261121-greeting.md';
    await page.keyboard.press('Control+P');
    await page.locator('.quick-input-widget .quick-input-box input').fill(GREETING);
    await workbench.quickPickRow(GREETING).click({ timeout: 15_000 });
    await page.locator('.monaco-editor .view-lines', { hasText: 'id: PRD-20261121-greeting' }).first().waitFor({ timeout: 15_000 });
    await workbench.runCommand('Ideal State: Lock Criteria');
    const asked = page.locator(DIALOG);
    await asked.waitFor({ timeout: 30_000 });
    const shown = (await asked.innerText()).replace(/\s+/g, ' ');
    assert.match(shown, /Lock 7 criteria of \.ideal-state\/prds\/PRD-20261121-greeting\.md\?/, shown);
    assert.match(shown, /ISC-A-001: Custom: the done gate verifies outside the editor, where no model judges Custom criteria\. To fix: make it a command or a Grep, or lower its priority\./, shown);
    assert.doesNotMatch(shown, /ISC-DEMO-/, 'only the PRD in view: no criterion of another PRD');
    await workbench.screenshot('lock dialog for the prd in view');
    await asked.getByRole('button', { name: 'Lock', exact: true }).click();
    const paths = () => JSON.parse(readFileSync(lockFile(), 'utf8')).prds.map((p) => p.path);
    for (let tries = 0; tries < 60 && paths().length < 2; tries++) await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(paths(), ['.ideal-state/prds/PRD-20261121-greeting.md', `.ideal-state/prds/${DEMO}`], 'the greeting PRD is locked beside the one locked before');
  });
});
