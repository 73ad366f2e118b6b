import type { UndoStep } from './checkpoint';

/**
 * What each run can still undo, newest run first: its steps not yet undone, less those on a file
 * a later run changed and has not undone. Undo goes back in order, as an editor's does: a run
 * whose file a later run changed again is not offered for that file (it would throw the later
 * run's edit away, and a run already undone would look undoable again once the same edit is
 * made anew). Once the later run is undone, the earlier one's step is what remains.
 */
export function undoableSteps<T extends { readonly id: string }>(newestFirst: readonly { readonly run: T; readonly pending: readonly UndoStep[] }[]): { run: T; steps: UndoStep[] }[] {
  const later = new Set<string>();
  const out: { run: T; steps: UndoStep[] }[] = [];
  for (const { run, pending } of newestFirst) {
    const steps = pending.filter((s) => !later.has(s.path));
    for (const s of pending) later.add(s.path);
    if (steps.length > 0) out.push({ run, steps });
  }
  return out;
}
