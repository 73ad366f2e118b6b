import type { FileCheckpoint } from '../core/algorithm/ports';

/** Keeps a file's content before a run first changes it, durably, before the change. */
export interface Checkpointer {
  before(path: string, content: string | undefined): void;
}

/** What "Undo Run Changes" does to each file the run touched. */
export type UndoStep = { readonly path: string; readonly action: 'restore'; readonly text: string } | { readonly path: string; readonly action: 'delete' };

/** The undo of a run: every checkpointed file back to its content, created files removed. */
export function undoPlan(checkpoints: readonly FileCheckpoint[]): UndoStep[] {
  return [...checkpoints]
    .sort((a, b) => a.path.localeCompare(b.path))
    .map((c) => (c.before === undefined ? { path: c.path, action: 'delete' as const } : { path: c.path, action: 'restore' as const, text: c.before }));
}

/** Applies an undo plan through the workspace, returning the paths it changed. */
export async function undoRunChanges(checkpoints: readonly FileCheckpoint[], files: { writeFile(path: string, text: string): Promise<void>; deleteFile(path: string): Promise<void> }): Promise<string[]> {
  const changed: string[] = [];
  for (const step of undoPlan(checkpoints)) {
    if (step.action === 'restore') await files.writeFile(step.path, step.text);
    else await files.deleteFile(step.path);
    changed.push(step.path);
  }
  return changed;
}
