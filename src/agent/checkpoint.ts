import * as crypto from 'node:crypto';
import type { FileCheckpoint, PrdFile, RunStorage } from '../algorithm/ports';

/** Keeps a file's content before a run first changes it, durably, before the change. */
export interface Checkpointer {
  /**
   * Called before each change with the file's content then (the storage keeps the first one).
   * `leaves`: the text the run is about to leave in the file, for files that undo must not
   * clobber once someone else changed them (the run's PRD, which people edit).
   */
  before(path: string, content: string | undefined, leaves?: string): void;
}

export const sha256 = (text: string): string => crypto.createHash('sha256').update(text, 'utf8').digest('hex');

/** The checkpointer of one run over its storage (the command line's and the editor's wiring). */
export function storageCheckpointer(storage: Pick<RunStorage, 'saveCheckpoint'>, runId: string, now: () => Date = () => new Date()): Checkpointer {
  return {
    before: (path, content, leaves) =>
      storage.saveCheckpoint(runId, { path, ...(content !== undefined ? { before: content } : {}), ...(leaves !== undefined ? { afterSha256: sha256(leaves) } : {}), at: now().toISOString() }),
  };
}

/**
 * The run's PRD, checkpointed like the agent's files: before each write the
 * PRD as it was before the run is kept (first write only) with a fingerprint of what the run
 * writes, so `undo` puts it back, or removes a PRD the run created — unless someone edited it
 * after the run, which undo then says and leaves alone.
 */
export function checkpointedPrd(file: PrdFile, checkpoint: Checkpointer): PrdFile {
  return {
    path: file.path,
    read: () => file.read(),
    write: async (text) => {
      checkpoint.before(file.path, await file.read(), text);
      await file.write(text);
    },
  };
}

/** What "Undo Run Changes" does to each file the run touched; `ifSha256`: only while the file still holds what the run left. */
export type UndoStep = ({ readonly path: string; readonly action: 'restore'; readonly text: string } | { readonly path: string; readonly action: 'delete' }) & { readonly ifSha256?: string };

/** The undo of a run: every checkpointed file back to its content, created files removed. */
export function undoPlan(checkpoints: readonly FileCheckpoint[]): UndoStep[] {
  return [...checkpoints]
    .sort((a, b) => a.path.localeCompare(b.path))
    .map((c) => {
      const guard = c.afterSha256 !== undefined ? { ifSha256: c.afterSha256 } : {};
      return c.before === undefined ? { path: c.path, action: 'delete' as const, ...guard } : { path: c.path, action: 'restore' as const, text: c.before, ...guard };
    });
}

/** Whether the file (holding `current`; undefined: no such file) is already as the step would leave it: an undo done before. */
export function undoDone(step: UndoStep, current: string | undefined): boolean {
  return step.action === 'delete' ? current === undefined : current === step.text;
}

/** Why undo leaves a file as it is, or undefined when the step applies to the file holding `current` (undefined: no such file) now. */
export function undoHolds(step: UndoStep, current: string | undefined): string | undefined {
  if (step.ifSha256 === undefined) return undefined;
  // Already as before the run (an undo done twice): applying it again changes nothing.
  if (undoDone(step, current)) return undefined;
  if (current === undefined) return 'it was deleted after the run; it is left deleted';
  return sha256(current) === step.ifSha256 ? undefined : 'it was edited after the run; it is left as it is';
}

export interface UndoResult {
  /** Paths put back or removed. */
  readonly changed: string[];
  /** Files left alone, each with the reason (edited after the run). */
  readonly left: { readonly path: string; readonly reason: string }[];
}

/** Applies an undo plan through the workspace. */
export async function undoRunChanges(
  checkpoints: readonly FileCheckpoint[],
  files: { readFile(path: string): Promise<string | undefined>; writeFile(path: string, text: string): Promise<void>; deleteFile(path: string): Promise<void> },
): Promise<UndoResult> {
  const changed: string[] = [];
  const left: { path: string; reason: string }[] = [];
  for (const step of undoPlan(checkpoints)) {
    const reason = step.ifSha256 === undefined ? undefined : undoHolds(step, await files.readFile(step.path));
    if (reason !== undefined) {
      left.push({ path: step.path, reason });
      continue;
    }
    if (step.action === 'restore') await files.writeFile(step.path, step.text);
    else await files.deleteFile(step.path);
    changed.push(step.path);
  }
  return { changed, left };
}
