import * as assert from 'node:assert/strict';
import type { UndoStep } from '../../../src/agent/checkpoint';
import { undoableSteps } from '../../../src/agent/undo-order';

const restore = (path: string): UndoStep => ({ path, action: 'restore', text: 'before' });
const remove = (path: string): UndoStep => ({ path, action: 'delete' });

describe('Undo Run Changes: what each run can still undo, in order', () => {
  it('never offers a run already undone because a later run made the same edit again', () => {
    // Run 1 was undone (its PRD removed, src/greet.js restored); run 2 made the same edit anew,
    // so src/greet.js differs from run 1's "before" again: only run 2 can undo it.
    const run1 = { id: 'run-1' };
    const run2 = { id: 'run-2' };
    const offered = undoableSteps([
      { run: run2, pending: [remove('.ideal-state/prds/PRD-2.md'), restore('src/greet.js')] },
      { run: run1, pending: [restore('src/greet.js')] },
    ]);
    assert.deepEqual(offered.map((o) => [o.run.id, o.steps.map((s) => s.path)]), [['run-2', ['.ideal-state/prds/PRD-2.md', 'src/greet.js']]]);
  });

  it('offers an earlier run its own files only, never one a later run changed again', () => {
    const offered = undoableSteps([
      { run: { id: 'run-2' }, pending: [restore('src/greet.js')] },
      { run: { id: 'run-1' }, pending: [remove('.ideal-state/prds/PRD-1.md'), restore('src/greet.js')] },
    ]);
    assert.deepEqual(offered.map((o) => [o.run.id, o.steps.map((s) => s.path)]), [['run-2', ['src/greet.js']], ['run-1', ['.ideal-state/prds/PRD-1.md']]]);
    // Once run 2 is undone, run 1's file is its own again.
    assert.deepEqual(undoableSteps([{ run: { id: 'run-2' }, pending: [] }, { run: { id: 'run-1' }, pending: [restore('src/greet.js')] }]).map((o) => o.run.id), ['run-1']);
  });
});
