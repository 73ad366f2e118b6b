import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useWorkbench } from './workbench-suite.mjs';

const DIALOG = '.monaco-dialog-box';

/**
 * "Ideal State: Install the Done Gate for…" clicked through as a person would, in the extension
 * installed from the packaged .vsix: the palette, the pick of hosts (the one whose folder is in
 * the workspace first, marked), the modal that names the file and the hook command, Install; the
 * hook written runs the command line that ships inside the installed extension.
 */
describe('Install the Done Gate for… in the workbench', () => {
  const workbench = useWorkbench({ trusted: true });

  it('offers the host found in the workspace first, shows what it writes in a modal, and installs it', async () => {
    mkdirSync(join(workbench.workspace, '.claude'), { recursive: true });
    await workbench.runCommand('Ideal State: Install the Done Gate for…');
    const rows = await workbench.quickPickRows();
    // The sample workspace has .vscode/ too (VS Code's own agent hooks): both found, first.
    const found = rows.filter((r) => /found \.\w+\/ in this workspace/.test(r));
    assert.deepEqual(rows.slice(0, found.length), found, `the hosts found come first: ${JSON.stringify(rows)}`);
    assert.ok(found.some((r) => /^Claude Code.*found \.claude\/ in this workspace/.test(r)), JSON.stringify(rows));
    assert.ok(rows.length > found.length && rows.slice(found.length).every((r) => /no \.\w+\/ in this workspace/.test(r)), JSON.stringify(rows));
    await workbench.screenshot('install done gate pick of hosts');
    await workbench.pickQuickPickItem('Claude Code');
    // A command line that takes --scope asks where first; the workspace is the one this test writes.
    const dialog = workbench.page.locator(DIALOG);
    const where = workbench.page.locator('.quick-input-widget .monaco-list-row', { hasText: 'In this workspace' });
    await Promise.race([dialog.waitFor({ timeout: 60_000 }), where.waitFor({ timeout: 60_000 })]);
    if (await where.isVisible()) await workbench.pickQuickPickItem('In this workspace');
    await dialog.waitFor({ timeout: 60_000 });
    const shown = (await dialog.innerText()).replace(/\s+/g, ' ');
    assert.match(shown, /Install the done gate for Claude Code in this workspace\?/, shown);
    assert.match(shown, /Files: \.claude\/settings\.json, \.mcp\.json/, shown);
    assert.match(shown, /Hook command: \S+ \S+dist\/cli\.js gate --host claude-code --workspace /, shown);
    assert.match(shown, /an agent can switch the gate off there/, shown);
    await workbench.screenshot('install done gate modal');
    await dialog.getByRole('button', { name: 'Install', exact: true }).click();
    const [done] = (await workbench.notifications({ containing: 'Installed the done gate for Claude Code', timeoutMs: 60_000 })).filter((t) => t.includes('Installed the done gate'));
    assert.match(done, /\.claude\/settings\.json, \.mcp\.json/);

    const settings = JSON.parse(readFileSync(join(workbench.workspace, '.claude', 'settings.json'), 'utf8'));
    const command = settings.hooks.Stop[0].hooks[0].command;
    const cli = command.split(' ')[1];
    assert.ok(cli.startsWith(workbench.profile.extensionsDir) && cli.endsWith(join('dist', 'cli.js')), `the hook runs the installed extension's own command line: ${command}`);
    assert.ok(existsSync(cli), cli);
    assert.ok(shown.includes(command), 'the modal named the command that was written');
  });

  it('carries its README with every image it shows inside the package, and shows the README on its extension page', async () => {
    // The folder the .vsix was unpacked into by the install, as a user's install unpacks it.
    const [folder] = readdirSync(workbench.profile.extensionsDir).filter((n) => n.startsWith('ideal-state.ideal-state-'));
    const root = join(workbench.profile.extensionsDir, folder);
    const readme = readFileSync(join(root, 'readme.md'), 'utf8');
    const images = [...readme.matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]);
    assert.ok(images.length >= 2, `the README shows images: ${JSON.stringify(images)}`);
    for (const image of images) {
      assert.ok(!/^\w+:/.test(image), `${image} is a path inside the package, not a URL`);
      const bytes = readFileSync(join(root, image));
      assert.equal(bytes.subarray(1, 4).toString('latin1'), 'PNG', `${image} is a PNG in the package`);
    }
    await workbench.runCommand('Extensions: Show Installed Extensions');
    const entry = workbench.page.locator('.extensions-viewlet .monaco-list-row', { hasText: 'Ideal State' }).first();
    await entry.waitFor({ timeout: 60_000 });
    await entry.click();
    const page = await workbench.webview('Extension: Ideal State', { timeoutMs: 60_000 });
    await page.locator('h1', { hasText: 'Ideal State' }).first().waitFor({ timeout: 30_000 });
    assert.match(await page.locator('body').innerText(), /Install the Done Gate for…/);
    await workbench.screenshot('extension page readme');
  });
});
