import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkpointedPrd, sha256, storageCheckpointer, undoHolds, undoPlan, undoRunChanges } from '../../../src/agent/checkpoint';
import { NodeWorkspace } from '../../../src/agent/node-workspace';
import { criteriaFromPrd } from '../../../src/algorithm/prd-sync';
import type { FileCheckpoint } from '../../../src/algorithm/ports';
import { toCoreCriterion } from '../../../src/prd/to-core';
import { harness, managerSteps, markerCriteria, markerFile, specialistSteps } from '../support/algorithm-helpers';

const PRD = ['---', 'prd: true', 'id: PRD-20261122-markers', 'status: DRAFT', 'effort_level: INSTANT', '---', '', '# Markers', '', '## Ideal State Criteria', '- [ ] ISC-1: Output file holds marker line number 1 | Verify: Grep: ^marker-1$', '', '## LOG', ''].join('\n');

const read = (root: string, p: string) => (fs.existsSync(path.join(root, p)) ? fs.readFileSync(path.join(root, p), 'utf8') : undefined);

describe('undo puts the run\'s PRD back too (issue 15 item 9)', () => {
  it('removes a PRD the run created, with the files the agent changed', async function () {
    this.timeout(30_000);
    const h = await harness([...managerSteps(markerCriteria(1)), ...specialistSteps('out.txt', markerFile(1))]);
    try {
      const result = await h.engine.start({ request: 'Write out.txt', effort: 'INSTANT' });
      assert.equal(result.state, 'COMPLETE', result.reason);
      const prd = result.run.prdPath!;
      assert.match(prd, /^\.ideal-state\/prds\/.*\.md$/);
      assert.ok(read(h.workspace, prd)?.includes('status: COMPLETE'));
      const checkpoints = h.storage.checkpoints(result.run.id);
      assert.deepEqual(checkpoints.map((c) => [c.path, c.before ?? null]), [[prd, null], ['out.txt', null]]);
      assert.equal(checkpoints[0]!.afterSha256, sha256(read(h.workspace, prd)!), 'the fingerprint is of what the run left');
      const undone = await undoRunChanges(checkpoints, new NodeWorkspace(h.workspace));
      assert.deepEqual(undone, { changed: [prd, 'out.txt'], left: [] });
      assert.equal(fs.existsSync(path.join(h.workspace, prd)), false);
      assert.equal(fs.existsSync(path.join(h.workspace, 'out.txt')), false);
    } finally {
      h.close();
    }
  });

  it('puts a PRD the run was given back as it was before the run, byte for byte', async function () {
    this.timeout(30_000);
    const original = PRD.replace(/\n/g, '\r\n') + 'A note of the user\u2019s, \u00e9t\u00e9.\r\n';
    const criteria = criteriaFromPrd(original, '2026-11-22T00:00:00.000Z', toCoreCriterion);
    assert.deepEqual(criteria.problems, []);
    const h = await harness([{ object: { criteria: [] } }, { object: { criteria: [] } }, { object: { packets: [{ title: 'Write the output file', criterionIds: ['ISC-1'] }] } }, { object: { methods: [] } }, ...specialistSteps('out.txt', markerFile(1))]);
    try {
      fs.mkdirSync(path.join(h.workspace, 'docs'));
      fs.writeFileSync(path.join(h.workspace, 'docs/markers.md'), original);
      const result = await h.engine.start({ request: 'Markers', effort: 'INSTANT', prd: { path: 'docs/markers.md', criteria: criteria.criteria } });
      assert.equal(result.state, 'COMPLETE', result.reason);
      assert.notEqual(read(h.workspace, 'docs/markers.md'), original, 'the run wrote its results into the PRD');
      const undone = await undoRunChanges(h.storage.checkpoints(result.run.id), new NodeWorkspace(h.workspace));
      assert.deepEqual(undone.changed, ['docs/markers.md', 'out.txt']);
      assert.equal(read(h.workspace, 'docs/markers.md'), original);
      // Undone twice: the PRD already is as before the run, so nothing is "left".
      assert.deepEqual(await undoRunChanges(h.storage.checkpoints(result.run.id), new NodeWorkspace(h.workspace)), { changed: ['docs/markers.md', 'out.txt'], left: [] });
      assert.equal(read(h.workspace, 'docs/markers.md'), original);
    } finally {
      h.close();
    }
  });

  it('leaves a PRD the user edited after the run as it is, says so, and still undoes the other files', async function () {
    this.timeout(30_000);
    const h = await harness([...managerSteps(markerCriteria(1)), ...specialistSteps('out.txt', markerFile(1))]);
    try {
      const result = await h.engine.start({ request: 'Write out.txt', effort: 'INSTANT' });
      const prd = result.run.prdPath!;
      const edited = `${read(h.workspace, prd)}\nA decision the user wrote after the run.\n`;
      fs.writeFileSync(path.join(h.workspace, prd), edited);
      const undone = await undoRunChanges(h.storage.checkpoints(result.run.id), new NodeWorkspace(h.workspace));
      assert.deepEqual(undone, { changed: ['out.txt'], left: [{ path: prd, reason: 'it was edited after the run; it is left as it is' }] });
      assert.equal(read(h.workspace, prd), edited);
      assert.equal(fs.existsSync(path.join(h.workspace, 'out.txt')), false);
      // Deleted by the user after the run: not brought back.
      fs.rmSync(path.join(h.workspace, prd));
      const checkpoints = h.storage.checkpoints(result.run.id);
      const given: FileCheckpoint[] = checkpoints.map((c) => (c.path === prd ? { ...c, before: 'the text before the run\n' } : c));
      const again = await undoRunChanges(given, new NodeWorkspace(h.workspace));
      assert.deepEqual(again.left, [{ path: prd, reason: 'it was deleted after the run; it is left deleted' }]);
      assert.equal(fs.existsSync(path.join(h.workspace, prd)), false);
    } finally {
      h.close();
    }
  });

  it('keeps the first content and moves the fingerprint with each write; files without one are restored whatever they hold', async () => {
    const saved: { runId: string; c: FileCheckpoint }[] = [];
    const rows = new Map<string, FileCheckpoint>();
    const storage = {
      saveCheckpoint: (runId: string, c: FileCheckpoint) => {
        saved.push({ runId, c });
        const old = rows.get(c.path);
        rows.set(c.path, old ? { ...old, ...(c.afterSha256 ? { afterSha256: c.afterSha256 } : {}) } : c);
      },
    };
    let text: string | undefined = 'v0';
    const prd = checkpointedPrd({ path: 'p.md', read: async () => text, write: async (t) => void (text = t) }, storageCheckpointer(storage, 'run-1', () => new Date('2026-11-22T00:00:00.000Z')));
    await prd.write('v1');
    await prd.write('v2');
    assert.deepEqual(saved.map((s) => [s.runId, s.c.before, s.c.afterSha256]), [['run-1', 'v0', sha256('v1')], ['run-1', 'v1', sha256('v2')]]);
    assert.deepEqual(rows.get('p.md'), { path: 'p.md', before: 'v0', afterSha256: sha256('v2'), at: '2026-11-22T00:00:00.000Z' });
    const [step] = undoPlan([rows.get('p.md')!]);
    assert.deepEqual(step, { path: 'p.md', action: 'restore', text: 'v0', ifSha256: sha256('v2') });
    assert.equal(undoHolds(step!, 'v2'), undefined);
    assert.equal(undoHolds(step!, 'v0'), undefined, 'already as before the run');
    assert.match(undoHolds(step!, 'v2 and the user\'s line') ?? '', /edited after the run/);
    const [plain] = undoPlan([{ path: 'a.ts', before: 'x', at: '2026-11-22T00:00:00.000Z' }]);
    assert.equal(undoHolds(plain!, 'anything'), undefined);
  });

  it('StoreRunStorage: a later save keeps the first content and moves the fingerprint', async function () {
    this.timeout(30_000);
    const h = await harness([...managerSteps(markerCriteria(1)), ...specialistSteps('out.txt', markerFile(1))]);
    try {
      const result = await h.engine.start({ request: 'Write out.txt', effort: 'INSTANT' });
      const prd = result.run.prdPath!;
      h.storage.saveCheckpoint(result.run.id, { path: prd, before: 'ignored: the first content stays', afterSha256: sha256('later'), at: new Date().toISOString() });
      const row = h.storage.checkpoints(result.run.id).find((c) => c.path === prd)!;
      assert.equal(row.before, undefined, 'the PRD did not exist before the run');
      assert.equal(row.afterSha256, sha256('later'));
    } finally {
      h.close();
    }
  });
});
