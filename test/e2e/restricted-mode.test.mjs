import assert from 'node:assert/strict';
import { useWorkbench } from './workbench-suite.mjs';

describe('Ideal State in an untrusted workspace', () => {
  const workbench = useWorkbench({ trusted: false });

  it('says it runs in Restricted Mode in the status bar', async () => {
    const texts = await workbench.statusBarTexts({ containing: 'Ideal State: Restricted', timeoutMs: 30_000 });
    assert.ok(texts.some((text) => text.includes('Ideal State: Restricted')), `status bar shows ${JSON.stringify(texts)}`);
    await workbench.screenshot('restricted mode status bar');
  });
});
