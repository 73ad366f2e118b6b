import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useWorkbench } from './workbench-suite.mjs';

describe('Ideal State in an untrusted workspace', () => {
  const workbench = useWorkbench({ trusted: false });

  it('says it runs in Restricted Mode in the status bar', async () => {
    const texts = await workbench.statusBarTexts({ containing: 'Ideal State: Restricted', timeoutMs: 30_000 });
    assert.ok(texts.some((text) => text.includes('Ideal State: Restricted')), `status bar shows ${JSON.stringify(texts)}`);
    await workbench.screenshot('restricted mode status bar');
  });

  it('does not verify criteria: Verify Criteria says why and runs nothing', async () => {
    const prd = join(workbench.workspace, '.ideal-state', 'prds', 'PRD-20261122-verify-demo.md');
    const before = readFileSync(prd, 'utf8');
    await workbench.runCommand('Ideal State: Verify Criteria');
    const [message] = (await workbench.notifications({ containing: 'Restricted Mode' })).filter((t) => t.includes('Verify Criteria'));
    assert.match(message, /off in Restricted Mode/);
    assert.equal(await workbench.page.locator('.monaco-dialog-box').count(), 0, 'no dialog offers to run the commands');
    assert.equal(readFileSync(prd, 'utf8'), before, 'the PRD is untouched');
  });
});
