import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useWorkbench } from './workbench-suite.mjs';

const PRD = '.ideal-state/prds/PRD-20261122-verify-demo.md';

/**
 * Ideal State as the done gate where a person chats, in the real workbench: @ideal-state in the
 * chat view, and the tools as another extension's agent calls them (vscode.lm.invokeTool, where
 * VS Code asks the person with a dialog). The chat view answers only with a model selected: the
 * scripted agent model (test/fixtures/scripted-agent-model) is one, and says it is not a real model.
 */
describe('@ideal-state and the tools in the chat view', () => {
  // A user's allow-list that covers the command an agent will propose below.
  const workbench = useWorkbench({ trusted: true, agentModel: true, settings: { 'idealState.verify.allowedCommands': ['node -e *'] } });
  const prdText = () => readFileSync(join(workbench.workspace, PRD), 'utf8');
  /** A table cell may break an id over lines: compare without the breaks. */
  const flat = (text) => text.replace(/\s+/g, ' ').replace(/(?<=[A-Z])-\s+/g, '-');

  /**
   * Types into the chat view's input and sends it, as a person does; returns the newest answer
   * (the list renders only the rows in view, so answers are told apart by what they hold).
   */
  async function chat(text) {
    await workbench.page.locator('.interactive-input-part .monaco-editor').first().click({ force: true });
    await workbench.page.keyboard.type(text);
    await workbench.page.keyboard.press('Enter');
    return workbench.page.locator('.interactive-response').last();
  }

  /** The modal dialog VS Code shows now, and its text. */
  async function dialog() {
    const box = workbench.page.locator('.monaco-dialog-box');
    await box.waitFor({ timeout: 60_000 });
    return { box, text: (await box.innerText()).replace(/\s+/g, ' ') };
  }

  /** What an agent in another extension does: calls a tool with vscode.lm.invokeTool. */
  async function agentCalls(tool, input) {
    await workbench.runCommand('Ideal State Tests: Call Language Model Tool…');
    await workbench.typeIntoInputBox(`${tool} ${JSON.stringify(input)}`);
  }

  before(async () => {
    await workbench.runCommand('Ideal State: Show Log');
    // The chat view has picked the scripted model once the workbench has it.
    await workbench.page.locator('.interactive-input-part .chat-input-picker-label', { hasText: 'Scripted agent' }).first().waitFor({ timeout: 60_000 });
  });

  it("@ideal-state /criteria lists the PRD's criteria in the chat view", async () => {
    const response = await chat(`@ideal-state /criteria ${PRD}`);
    await response.locator('table', { hasText: 'ISC-DEMO-001' }).waitFor({ timeout: 60_000 });
    const text = flat(await response.innerText());
    for (const id of ['ISC-DEMO-001', 'ISC-DEMO-005', 'ISC-A-DEMO-001']) assert.ok(text.replace(/-\s*/g, '-').includes(id), `${id} in ${text}`);
    assert.match(text, /7 criteria/);
    assert.match(text, /not verified/);
  });

  it('@ideal-state /verify asks before running the commands, says NOT DONE with the failing criterion, and opens the ISC table', async () => {
    const response = await chat(`@ideal-state /verify ${PRD}`);
    const asked = await dialog();
    assert.match(asked.text, /node --version/);
    assert.match(asked.text, /task: check: changelog exists/);
    await asked.box.getByRole('button', { name: 'Run Them' }).click();
    // The answer ends with the button; the list scrolls, so read the whole answer's text once it is there.
    const open = response.getByRole('button', { name: 'Open ISC Table' });
    await open.waitFor({ timeout: 120_000 });
    const text = flat(await response.innerText()).replace(/-\s*/g, '-');
    assert.match(text, /NOT DONE/);
    // The sample has no changelog: its CRITICAL criterion fails, and the answer says so.
    assert.match(text, /ISC-DEMO-004 CRITICA ?L FAIL/);
    assert.match(text, /ISC-DEMO-005 CRITICA ?L PASS/);
    await workbench.screenshot('the chat view after @ideal-state verify');
    await open.click();
    const table = await workbench.webview('ISC');
    await table.getByText('ISC-DEMO-004').first().waitFor({ timeout: 30_000 });
  });

  it("an agent's ideal-state_propose_criteria writes nothing when the person cancels, and adds the criterion when they confirm", async () => {
    const input = { prd: PRD, criteria: [{ text: 'The greeting module exports one greet function only', priority: 'IMPORTANT', verify: 'Grep: module.exports' }] };
    const before = prdText();
    await agentCalls('ideal-state_propose_criteria', input);
    let asked = await dialog();
    assert.match(asked.text, /ISC-DEMO-007/);
    assert.match(asked.text, /criteria version 2/);
    await asked.box.getByRole('button', { name: 'Cancel' }).click();
    await workbench.notifications({ containing: 'ideal-state_propose_criteria failed' });
    assert.equal(prdText(), before, 'a cancelled proposal writes nothing');

    await workbench.runCommand('Notifications: Clear All Notifications');
    await agentCalls('ideal-state_propose_criteria', input);
    asked = await dialog();
    await asked.box.getByRole('button', { name: 'Yes' }).click();
    await workbench.notifications({ containing: 'ideal-state_propose_criteria answered' });
    const after = prdText();
    assert.match(after, /^criteria_version: 2$/m);
    assert.match(after, /ISC-DEMO-007: .*The greeting module exports one greet function only \| Verify: Grep: module\.exports/);
  });

  it("an agent's ideal-state_verify names the command in the confirmation and returns the outcome once confirmed", async () => {
    await workbench.runCommand('Notifications: Clear All Notifications');
    await agentCalls('ideal-state_verify', { prd: PRD, criteria: ['ISC-DEMO-005'] });
    const asked = await dialog();
    assert.match(asked.text, /node --version/);
    assert.doesNotMatch(asked.text, /changelog/, "only the named criterion's command");
    await asked.box.getByRole('button', { name: 'Yes' }).click();
    // The person confirmed the command in the tool's confirmation: the verification does not ask a second time
    // (a second dialog would hold the answer back until this times out).
    const answered = await workbench.notifications({ containing: 'ideal-state_verify answered', timeoutMs: 60_000 });
    const text = answered.find((t) => t.includes('ideal-state_verify answered'));
    assert.match(text, /"id": "ISC-DEMO-005"/);
    assert.match(text, /"outcome": "PASS"/);
  });

  it("a command an agent's proposal brought is asked for once, though the allow-list matches it, then runs", async () => {
    await workbench.runCommand('Notifications: Clear All Notifications');
    const command = 'node -e "process.exit(0)"';
    await agentCalls('ideal-state_propose_criteria', { prd: PRD, criteria: [{ text: 'The node runtime starts and exits cleanly here', verify: `CLI: ${command}` }] });
    let asked = await dialog();
    await asked.box.getByRole('button', { name: 'Yes' }).click();
    await workbench.notifications({ containing: 'ideal-state_propose_criteria answered' });
    const id = /^- \[ \] (ISC-DEMO-\d+): .*The node runtime starts and exits cleanly here/m.exec(prdText())?.[1];
    assert.ok(id, prdText());

    await workbench.runCommand('Notifications: Clear All Notifications');
    await agentCalls('ideal-state_verify', { prd: PRD, criteria: [id] });
    asked = await dialog();
    await asked.box.getByRole('button', { name: 'Yes' }).click();
    // VS Code's confirmation of the tool is not the person's yes to the command: Ideal State asks, naming where it came from.
    const ours = workbench.page.locator('.monaco-dialog-box', { hasText: "added through an agent's proposal" });
    await ours.waitFor({ timeout: 60_000 });
    asked = { box: ours, text: (await ours.innerText()).replace(/\s+/g, ' ') };
    assert.match(asked.text, /node -e "process\.exit\(0\)" \(added through an agent's proposal\)/);
    assert.match(asked.text, /asked for even when the allow-list matches it/);
    await workbench.screenshot('a proposed command asked for despite the allow-list');
    await asked.box.getByRole('button', { name: 'Run It' }).click();
    let answered = await workbench.notifications({ containing: 'ideal-state_verify answered', timeoutMs: 60_000 });
    assert.match(answered.find((t) => t.includes('ideal-state_verify answered')), /"outcome": "PASS"/);

    // Allowed once by a person: the allow-list covers it from now on, and nothing asks.
    await workbench.runCommand('Notifications: Clear All Notifications');
    await agentCalls('ideal-state_verify', { prd: PRD, criteria: [id] });
    asked = await dialog();
    await asked.box.getByRole('button', { name: 'Yes' }).click();
    answered = await workbench.notifications({ containing: 'ideal-state_verify answered', timeoutMs: 60_000 });
    assert.match(answered.find((t) => t.includes('ideal-state_verify answered')), /"outcome": "PASS"/);
  });
});
