import assert from 'node:assert/strict';
import { useWorkbench } from './workbench-suite.mjs';

describe("Ideal State's language-model tools in the chat view's tool list", () => {
  const workbench = useWorkbench({ trusted: true });

  it('lists the three tools where a person picks the tools of a chat', async () => {
    // Tools of an extension show once it has started (the sample workspace has PRDs, so it does).
    await workbench.runCommand('Ideal State: Show Log');
    // The chat view's own button (the workbench opens the chat view beside the editor, in Agent mode).
    const configure = workbench.page.locator('.interactive-input-part [aria-label*="Configure Tools"]').first();
    await configure.waitFor({ timeout: 30_000 });
    await configure.click();
    // The extension's tools are a group named after it, collapsed (so may be the bundled MCP server's, once it is listed): open them.
    const groups = workbench.page.locator('.quick-input-widget .monaco-list-row[aria-expanded="false"]', { hasText: /^Ideal State$/ });
    await groups.first().waitFor({ timeout: 30_000 });
    const verifyRow = workbench.page.locator('.quick-input-widget .monaco-list-row', { hasText: 'idealStateVerify' }).first();
    // A group may be listed after the first one (the MCP server's is found in the background): open each as it shows.
    for (const deadline = Date.now() + 30_000; !(await verifyRow.isVisible()) && Date.now() < deadline; ) {
      if ((await groups.count()) > 0) await groups.first().locator('.monaco-tl-twistie').click();
      else await verifyRow.waitFor({ timeout: 500 }).catch(() => undefined);
    }
    const rows = await workbench.quickPickRows();
    for (const name of ['idealStateCriteria', 'idealStateVerify', 'idealStateProposeCriteria']) {
      assert.ok(rows.some((r) => r.includes(name)), `${name} in ${rows.join(' | ')}`);
    }
    await workbench.screenshot('the chat tool list with the ideal-state tools');
  });
});
