import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
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

describe('API keys, as a person sets one', () => {
  const PLANTED = 'sk-test-PLANTED-e2e-0123456789abcdef';
  const workbench = useWorkbench({ trusted: true });

  it('stores the key from "Set API Key" in secret storage, after which the model is available', async () => {
    // Nothing is available yet: Select Model says so plainly instead of failing silently.
    await workbench.runCommand('Ideal State: Select Model');
    await workbench.notifications({ containing: 'found no language model' });
    // The person takes the message's own way out.
    await workbench.page
      .locator('.notification-list-item', { hasText: 'found no language model' })
      .first()
      .getByRole('button', { name: 'Set API Key' })
      .click();
    await workbench.pickQuickPickItem('openai');
    // Type only once the key's own (password) box is up, not into the closing provider pick.
    await workbench.page.locator('.quick-input-widget .quick-input-box input[type="password"]').waitFor({ timeout: 15_000 });
    await workbench.typeIntoInputBox(PLANTED);
    await workbench.notifications({ containing: 'is saved in VS Code' });

    let rows = [];
    for (let attempt = 0; attempt < 10 && !rows.some((r) => r.includes(OPENAI_DEFAULT) && !r.includes('unavailable')); attempt++) {
      await workbench.runCommand('Ideal State: Select Model');
      rows = await workbench.quickPickRows();
      await workbench.page.keyboard.press('Escape');
    }
    assert.ok(rows.some((r) => r.includes(OPENAI_DEFAULT) && !r.includes('unavailable')), JSON.stringify(rows));
    await workbench.screenshot('model available after setting a key');
  });

  it('leaves the key nowhere but secret storage: not in settings, workspace files or logs', async () => {
    const { readdirSync, readFileSync, statSync } = await import('node:fs');
    const { join } = await import('node:path');
    const files = (dir) =>
      readdirSync(dir).flatMap((name) => {
        const full = join(dir, name);
        return statSync(full).isDirectory() ? files(full) : [full];
      });
    const searched = [...files(workbench.workspace), ...files(join(workbench.profile.userDataDir, 'logs')), ...files(join(workbench.profile.userDataDir, 'User')).filter((f) => f.endsWith('.json'))];
    assert.ok(searched.length > 3, `searched ${searched.length} files`);
    const leaks = searched.filter((f) => readFileSync(f).includes(PLANTED));
    assert.deepEqual(leaks, []);
  });
});
