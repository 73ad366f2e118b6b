import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import type { Run } from '../../src/model';
import { activateIdealState, handoffFile } from './ideal-state';

// Runs in the second launch on the same user-data folder and workspace: a window reload.
describe('the store after a window reload', () => {
  it('still holds the run saved before the reload, in the same file', async () => {
    const saved: { run: Run; location: string } = JSON.parse(fs.readFileSync(handoffFile('saved-run.json'), 'utf8'));
    const store = await (await activateIdealState()).store();
    assert.equal(store.location, saved.location);
    assert.deepEqual(await store.runs.get(saved.run.id), saved.run);
  });
});
