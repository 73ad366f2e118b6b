import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ReflectionNode } from '../../src/vscode/learning';
import { TableRatings } from '../../src/vscode/learning/table-rating';
import { storeFinishedRun } from '../unit/support/learning-seed';
import { activateIdealState } from './ideal-state';

async function children(provider: vscode.TreeDataProvider<ReflectionNode>, node?: ReflectionNode): Promise<ReflectionNode[]> {
  return (await provider.getChildren(node)) ?? [];
}

async function allReflectionNodes(provider: vscode.TreeDataProvider<ReflectionNode>): Promise<{ theme: string; category: string; node: ReflectionNode & { kind: 'reflection' } }[]> {
  const found: { theme: string; category: string; node: ReflectionNode & { kind: 'reflection' } }[] = [];
  for (const theme of await children(provider)) {
    assert.equal(theme.kind, 'theme');
    for (const category of await children(provider, theme)) {
      assert.equal(category.kind, 'category');
      for (const node of await children(provider, category)) {
        assert.equal(node.kind, 'reflection');
        found.push({ theme: (theme as { theme: string }).theme, category: (category as { category: string }).category, node: node as ReflectionNode & { kind: 'reflection' } });
      }
    }
  }
  return found;
}

describe('learning in the editor, against a stored history', () => {
  it('rates stored finished runs and shows their reflections in the tree by theme → category → run', async () => {
    const api = await activateIdealState();
    const store = await api.store();
    const low = storeFinishedRun(store, {
      request: 'Integration: add a dark mode toggle to the settings page',
      criteria: [
        { text: 'Settings page shows a dark mode toggle switch', outcome: 'PASS' },
        { text: 'Toggle state persists after a page reload', outcome: 'FAIL' },
      ],
      prdPath: '.ideal-state/prds/PRD-20261121-greeting.md',
    });
    const good = storeFinishedRun(store, { request: 'Integration: add a CSV export to the reports table', criteria: [{ text: 'Export includes every visible column', outcome: 'PASS' }] });
    const before = (await api.learning.host.service()).figures().count;

    await api.learning.host.rate(good.id, { rating: 9 });
    await api.learning.host.rate(low.id, { rating: 3, text: 'the toggle forgets my choice' });
    await vscode.commands.executeCommand('idealState.mineReflections');

    const nodes = await allReflectionNodes(api.learning.reflections);
    const lowNode = nodes.find((n) => n.node.reflection.runId === low.id);
    assert.ok(lowNode, `the low-rated run is in the tree: ${JSON.stringify(nodes.map((n) => n.node.reflection.runId))}`);
    assert.notEqual(lowNode.theme, 'Not mined yet', 'mining gave it a theme');
    assert.match(lowNode.node.reflection.learningNote ?? '', /Failed: ISC-2 "Toggle state persists after a page reload"/);
    const item = api.learning.reflections.getTreeItem(lowNode.node);
    assert.match(String(item.description), /3\/10 · learning note/);
    assert.equal(item.command?.command, 'vscode.open');

    const uri = item.command!.arguments![0] as vscode.Uri;
    const document = await vscode.workspace.openTextDocument(uri);
    const text = document.getText();
    assert.match(text, /## Learning note/);
    assert.match(text, /no model was available/);
    assert.match(text, new RegExp(`\\[${low.id}\\]\\(ideal-state-run:/${low.id}\\.md\\)`));
    assert.match(text, /\[\.ideal-state\/prds\/PRD-20261121-greeting\.md\]\(file:\/\/.*PRD-20261121-greeting\.md\)/);
    const runDocument = await vscode.workspace.openTextDocument(vscode.Uri.parse(`ideal-state-run:/${low.id}.md`));
    assert.match(runDocument.getText(), /ISC-2: Toggle state persists after a page reload — fails/);

    assert.equal((await api.learning.host.service()).figures().count, before + 2);
  });

  it('the Ratings view asks about the newest unrated finished run and reports the figures; the status bar shows them', async () => {
    const api = await activateIdealState();
    const store = await api.store();
    const run = storeFinishedRun(store, { request: 'Integration: rename the greet function', criteria: [{ text: 'No caller uses the old greet name', outcome: 'PASS' }], finishedAt: new Date().toISOString() });
    api.learning.host.changed();
    await vscode.commands.executeCommand('idealState.ratings.focus');
    const snapshot = await api.learning.ratings.snapshot();
    assert.equal(snapshot.ask?.runId, run.id);
    assert.equal(snapshot.ask?.criteriaCount, 1);
    const figures = (await api.learning.host.service()).figures();
    assert.equal(snapshot.figures.count, figures.count);
    assert.equal(snapshot.history.at(-1)?.effort, 'STANDARD');
    await api.learning.status.update();
    assert.equal(api.learning.status.item.text, `$(star-full) ${figures.rollingAverage!.toFixed(1)} ${figures.trend}`);
  });
});

describe('rating a run from its ISC table, and a comment kept without a rating', () => {
  it('the table asks once the run has ended; rated there, the Ratings view, the status bar and the table all show the one rating', async () => {
    const api = await activateIdealState();
    const store = await api.store();
    const run = storeFinishedRun(store, { request: 'Integration: rate me from the table', criteria: [{ text: 'The table shows a rating section', outcome: 'PASS' }], finishedAt: new Date().toISOString() });
    api.learning.host.changed();
    const ratings = new TableRatings(api.learning.host);
    await vscode.commands.executeCommand('idealState.openIscTable', run.id);
    let shown = await api.iscTable.tables.shown(run.id);
    assert.match(shown.rating ?? '', /^How did this go\?/);
    assert.deepEqual(await ratings.state(run.id), { open: true, modelAvailable: false, noModel: 'No model is chosen' });

    const result = await ratings.rate(run.id, { rating: 6, comment: 'good enough <b>ok</b>' });
    assert.ok(result.ok);
    assert.match(result.message, /^Rated 6\/10\. Reflection written from the run’s facts \(no model\)\.$/);
    await api.iscTable.tables.refresh(run.id);
    shown = await api.iscTable.tables.shown(run.id);
    assert.match(shown.rating ?? '', /6\/10 your rating “good enough <b>ok<\/b>”/);
    const snapshot = await api.learning.ratings.snapshot();
    assert.equal(snapshot.history.at(-1)?.runId, run.id);
    assert.equal(snapshot.history.at(-1)?.rating, 6);
    assert.notEqual(snapshot.ask?.runId, run.id, 'the Ratings view does not ask about it');
    const figures = (await api.learning.host.service()).figures();
    await api.learning.status.update();
    assert.equal(api.learning.status.item.text, `$(star-full) ${figures.rollingAverage!.toFixed(1)} ${figures.trend}`);

    assert.deepEqual(await ratings.rate(run.id, { rating: 9, comment: '' }), { ok: false, message: `Run ${run.id} is rated already (6/10); a run is rated once.` });
    assert.deepEqual(await ratings.rate(run.id, { rating: 11, comment: '' }), { ok: false, message: 'A rating is a whole number from 1 to 10, with an optional comment.' });
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('with no model, a comment alone is kept as a comment, said so, and the run is not asked about again; a number may still follow', async () => {
    const api = await activateIdealState();
    const store = await api.store();
    const run = storeFinishedRun(store, { request: 'Integration: a comment and no model', effort: 'FAST', criteria: [{ text: 'Nothing much happens here at all', outcome: 'PASS' }], finishedAt: new Date(Date.now() + 1000).toISOString() });
    api.learning.host.changed();
    const before = await api.learning.ratings.snapshot();
    assert.equal(before.ask?.runId, run.id);
    assert.equal(before.modelAvailable, false);

    const ratings = new TableRatings(api.learning.host);
    const result = await ratings.rate(run.id, { comment: 'it did roughly what I wanted' });
    assert.deepEqual(result, { ok: true, message: 'Kept as a comment; no model to read a rating from it. You can still choose a number.' });
    const after = await api.learning.ratings.snapshot();
    assert.notEqual(after.ask?.runId, run.id, 'the view stops asking about that run');
    assert.deepEqual(after.kept?.[0], { runId: run.id, request: 'Integration: a comment and no model', at: after.kept?.[0]?.at, comment: 'it did roughly what I wanted', why: 'no model to read a rating from it' });
    assert.equal(store.ratings.count('run_id = ?', [run.id]), 0);
    assert.deepEqual(await ratings.state(run.id), { open: true, modelAvailable: false, noModel: 'No model is chosen', kept: { comment: 'it did roughly what I wanted', why: 'no model to read a rating from it' } });
    // Rate Last Run does not ask about it either.
    assert.notEqual((await api.learning.host.service()).lastUnratedRun()?.id, run.id);

    assert.equal((await ratings.rate(run.id, { rating: 5, comment: '' })).message, 'Rated 5/10.');
    assert.equal((await ratings.state(run.id)).rating?.value, 5);
    assert.equal((await ratings.state(run.id)).rating?.comment, undefined);
  });
});
