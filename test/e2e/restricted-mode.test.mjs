import assert from 'node:assert/strict';
import { Workbench } from '../harness/workbench.mjs';
import { keepArtifactsOnFailure } from './failure-artifacts.mjs';

describe('Ideal State in an untrusted workspace', () => {
  let workbench;
  before(async () => {
    workbench = await Workbench.open({ trusted: false });
  });
  after(async () => {
    await workbench?.close();
  });
  keepArtifactsOnFailure(() => workbench);

  it('says it runs in Restricted Mode in the status bar', async () => {
    const texts = await workbench.statusBarTexts({ containing: 'Ideal State: Restricted', timeoutMs: 30_000 });
    assert.ok(texts.some((text) => text.includes('Ideal State: Restricted')), `status bar shows ${JSON.stringify(texts)}`);
    await workbench.screenshot('restricted mode status bar');
  });
});
