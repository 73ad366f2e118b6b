import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { DEMO_SETTINGS } from '../harness/server.mjs';
import { useWorkbench } from './workbench-suite.mjs';

// The default OpenAI model a key makes available is the catalogue's, so the test follows the catalogue.
const OPENAI_DEFAULT = `openai:${parse(readFileSync(new URL('../../src/llm/data/models.yaml', import.meta.url), 'utf8')).defaults.openai}`;

describe('Ideal State in a trusted workspace', () => {
  const workbench = useWorkbench({ trusted: true });

  it('lists its commands in the palette under "Ideal State"', async () => {
    // One query per command: with every feature's commands the palette's visible rows no longer hold them all.
    for (const title of ['Show Log', 'Show Store Info', 'List ISC Definitions', 'Show Effort Levels', 'Open ISC Table']) {
      const titles = await workbench.commandTitles(`Ideal State: ${title}`);
      assert.ok(titles.includes(`Ideal State: ${title}`), `palette shows ${JSON.stringify(titles)}`);
    }
    const screenshot = await workbench.screenshot('palette lists Ideal State commands');
    assert.ok(existsSync(screenshot));
  });

  it('names the store in a notification from "Show Store Info"', async () => {
    await workbench.runCommand('Ideal State: Show Store Info');
    const [message] = (await workbench.notifications({ containing: 'Ideal State store:' })).filter((t) => t.includes('Ideal State store:'));
    assert.match(message, /ideal-state\.ideal-state/);
    assert.match(message, /read-write/);
  });

  it('offers the effort levels in a quick pick', async () => {
    await workbench.runCommand('Ideal State: Show Effort Levels');
    const items = await workbench.quickPickItems();
    await workbench.page.keyboard.press('Escape');
    for (const level of ['INSTANT', 'STANDARD', 'COMPREHENSIVE']) {
      assert.ok(items.some((item) => item.includes(level)), `quick pick shows ${JSON.stringify(items)}`);
    }
  });

  it('customizes the effort levels for the workspace from the quick pick, and then shows the override', async () => {
    await workbench.runCommand('Ideal State: Show Effort Levels');
    await workbench.pickQuickPickItem('Customize for this workspace…');
    const tab = workbench.page.locator('.tab', { hasText: 'effort-levels.yaml' });
    await tab.first().waitFor({ timeout: 15_000 });
    await workbench.screenshot('effort override opened');
    let items = [];
    for (let attempt = 0; attempt < 20 && !items.some((i) => i.includes('STANDARD') && i.includes('240 s')); attempt++) {
      await workbench.runCommand('Ideal State: Show Effort Levels');
      items = await workbench.quickPickRows();
      await workbench.page.keyboard.press('Escape');
      await new Promise((r) => setTimeout(r, 250));
    }
    assert.ok(items.some((i) => i.includes('STANDARD') && i.includes('240 s')), `quick pick shows ${JSON.stringify(items)}`);
  });

  it('opens a shipped ISC definition picked from "List ISC Definitions"', async () => {
    await workbench.runCommand('Ideal State: List ISC Definitions');
    const items = await workbench.quickPickItems();
    assert.ok(items.some((i) => i.includes('code.bugfix')), JSON.stringify(items));
    await workbench.pickQuickPickItem('code.bugfix');
    await workbench.page.locator('.tab', { hasText: 'code.bugfix.yaml' }).first().waitFor({ timeout: 15_000 });
  });

  it('still shows its store after "Developer: Reload Window"', async () => {
    await workbench.reloadWindow();
    await workbench.runCommand('Ideal State: Show Store Info');
    await workbench.notifications({ containing: 'Ideal State store:' });
    await workbench.screenshot('store info after reload');
  });
});

// The `npm start` window: the sample's scripted demo is the model, and its models file names
// neither OpenAI nor Anthropic. The browser workbench's server (VS Code's own) has no route to
// mint the key that seals secrets (it answers POST with 405), so this window cannot keep a key.
describe('API keys and models, as a person finds them in the demo window', () => {
  const workbench = useWorkbench({ trusted: true, settings: DEMO_SETTINGS });

  it('Select Model lists OpenAI and Anthropic with why they cannot serve, and Set API Key and Configure Models', async () => {
    await workbench.runCommand('Ideal State: Select Model');
    const rows = await workbench.quickPickRows();
    await workbench.screenshot('select model in the demo window');
    assert.ok(rows.some((r) => r.includes('scripted: demo-run') && !r.includes('unavailable')), JSON.stringify(rows));
    assert.ok(rows.some((r) => r.includes(OPENAI_DEFAULT) && r.includes('unavailable') && r.includes('has no API key') && r.includes('OPENAI_API_KEY')), JSON.stringify(rows));
    assert.ok(rows.some((r) => r.startsWith('anthropic:') && r.includes('unavailable') && r.includes('ANTHROPIC_API_KEY')), JSON.stringify(rows));
    assert.ok(rows.some((r) => r.startsWith('Configure Models')), JSON.stringify(rows));
    assert.ok(rows.some((r) => r.startsWith('Set API Key')), JSON.stringify(rows));
  });

  it('Set API Key offers both providers, and says before asking for a key that this window cannot keep one', async () => {
    // Taken from the Select Model pick still open, as a person would.
    await workbench.pickQuickPickItem('Set API Key…');
    const items = await workbench.quickPickItems();
    await workbench.screenshot('set api key offers both providers');
    for (const provider of ['openai', 'anthropic']) assert.ok(items.includes(provider), JSON.stringify(items));
    await workbench.pickQuickPickItem('openai');
    const messages = await workbench.notifications({ containing: 'could not keep the API key for "openai"' });
    const message = messages.find((m) => m.includes('could not keep the API key'));
    assert.match(message, /HTTP 405/);
    assert.match(message, /nothing was saved/);
    assert.match(message, /Set OPENAI_API_KEY in the environment/);
    await workbench.screenshot('a key this window cannot keep is refused');
    assert.equal(await workbench.page.locator('.quick-input-widget .quick-input-box input[type="password"]').isVisible(), false, 'no key is asked for');
  });

  it('leaves OpenAI unavailable afterwards: nothing was half-saved', async () => {
    await workbench.runCommand('Ideal State: Select Model');
    const rows = await workbench.quickPickRows();
    await workbench.page.keyboard.press('Escape');
    assert.ok(rows.some((r) => r.includes(OPENAI_DEFAULT) && r.includes('has no API key')), JSON.stringify(rows));
  });
});
