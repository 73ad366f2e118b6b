/**
 * The done gate: what an agent outside Ideal State is held to, and whether it may
 * stop. What it trusts, and why:
 * - the criteria lock and the session baseline (lock.ts, held.ts): made by a person (a
 *   terminal prompt, an editor modal) or at the person's prompt, kept in the user's state
 *   folder (state-folder.ts), read back through a zod schema (lock-schema.ts);
 * - nothing else from the workspace: PRDs, tasks, the allow-list, .gitignore files and
 *   protected files are the agent's to edit, so they are compared with the lock
 *   (lock-changes.ts) before they can change a verdict (verdict.ts); a change is TAMPERED;
 * - the block counter lives beside the lock and refuses impossible entries (block-counter.ts);
 * - the workspace comes from the hook's command line or the host's project variable, never the
 *   payload (held.ts: gateWorkspace; gate install writes the workspace into the hook's command).
 * What it cannot stop: a process running as the user can forge the state folder on purpose.
 * CI with `ideal-state verify --criteria-from REF` is the hard boundary.
 */
export * from './answers';
export * from './answer-shapes';
export * from './block-counter';
export * from './check';
export * from './held';
export * from './lock';
export * from './lock-changes';
export * from './lock-inputs';
export * from './lock-schema';
export * from './prds';
export * from './state-folder';
export * from './verdict';
export * from './criteria-from';
export * from './approve';
export * from './revert';
export * from './session-prd';
export * from './agent-blocked';
