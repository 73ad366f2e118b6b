import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { IdleFolder } from '../../../src/mcp/fold-idle';
import { verifyTool, type ToolContext } from '../../../src/mcp/tools';
import { Store } from '../../../src/store/store';

/**
 * ideal-state_verify answers without opening the store (issue 26): its report is left as a
 * pending record beside the store, and the server folds the records in once it has been idle.
 */
const PRD = [
  '---',
  'prd: true',
  'id: PRD-20261127-fold',
  'status: IN_PROGRESS',
  'effort_level: INSTANT',
  '---',
  '',
  '# Fold fixture',
  '',
  '## Ideal State Criteria',
  '- [ ] ISC-1: The workspace has a CHANGELOG.md | Verify: Read: CHANGELOG.md',
  '',
  '## LOG',
  '',
].join('\n');

function fixture(): { dir: string; store: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-fold-'));
  fs.mkdirSync(path.join(dir, '.ideal-state', 'prds'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'CHANGELOG.md'), '# Changes\n');
  fs.writeFileSync(path.join(dir, '.ideal-state', 'prds', 'PRD-20261127-fold.md'), PRD);
  return { dir, store: path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-fold-store-')), 'store.sqlite') };
}

const pendingRecords = (store: string) => (fs.existsSync(`${store}.pending`) ? fs.readdirSync(`${store}.pending`).filter((n) => n.endsWith('.json')) : []);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function reportIds(store: string): Promise<string[]> {
  const db = await Store.open({ file: store });
  try {
    return db.reports.where('1 = 1').map((r) => r.id);
  } finally {
    db.close();
  }
}

describe('MCP verify: the report off the answer\'s path, folded when the server is idle (issue 26)', () => {
  it('answers with the store unopened, then folds the record once idle', async function () {
    this.timeout(60_000);
    const { dir, store } = fixture();
    const log: string[] = [];
    const folder = new IdleFolder(dir, store, (s) => log.push(s), 100);
    const ctx: ToolContext = { workspace: dir, store, log: (s) => log.push(s), folder };
    const answer = await verifyTool(ctx, { prd: '.ideal-state/prds/PRD-20261127-fold.md' });
    assert.equal(answer.allCriticalPass, true);
    assert.equal(fs.existsSync(store), false, 'the answer did not open the store');
    assert.equal(pendingRecords(store).length, 1);
    await sleep(400);
    await folder.settled();
    assert.deepEqual(pendingRecords(store), [], 'folded and removed');
    assert.equal((await reportIds(store)).length, 1);
    assert.deepEqual(log.filter((l) => /warning|not folded/.test(l)), []);
  });

  it('a call that starts before the pause puts the fold off; an idle server folds both records', async function () {
    this.timeout(60_000);
    const { dir, store } = fixture();
    const folder = new IdleFolder(dir, store, () => undefined, 300);
    const ctx: ToolContext = { workspace: dir, store, log: () => undefined, folder };
    await verifyTool(ctx, {});
    folder.cancel();
    await sleep(500);
    assert.equal(pendingRecords(store).length, 1, 'cancelled: nothing folded');
    await verifyTool(ctx, {});
    assert.equal(pendingRecords(store).length, 2);
    await sleep(700);
    await folder.settled();
    assert.deepEqual(pendingRecords(store), []);
    assert.equal((await reportIds(store)).length, 2);
  });

  it('with no store (--no-store) leaves nothing and folds nothing', async function () {
    this.timeout(60_000);
    const { dir, store } = fixture();
    const folder = new IdleFolder(dir, false, () => undefined, 50);
    await verifyTool({ workspace: dir, store: false, log: () => undefined, folder }, {});
    await sleep(200);
    await folder.settled();
    assert.equal(fs.existsSync(`${store}.pending`), false);
    assert.equal(fs.existsSync(store), false);
  });
});
