import { undoRunChanges } from '../../agent/checkpoint';
import type { ModelRouter } from '../../llm/router';
import type { AnyCriterion } from '../../model';
import { CancelledError } from '../../model/errors';
import type { Loop, LoopArtifact, LoopNotice } from '../../model/loop';
import { composeRun, type RunPorts } from '../compose-run';
import { mechanicalFailures, validateArtifact } from './validator';
import type { ArtifactVerification, ArtifactVerifier } from './verify-artifact';

export interface ArtifactWork {
  /** The artifact's row once its result is acknowledged (claim not yet removed). */
  readonly next: LoopArtifact;
  readonly notice?: LoopNotice;
}

/**
 * One agent's turn on one artifact: a sub-run (composeRun, the artifact's criteria as its
 * starting criteria), the loop's own verification of the artifact, then the builder–validator
 * decision. A rejected edit is put back through the sub-run's checkpoints (its own PRD stays,
 * the record of the attempt). Throws CancelledError when the signal stops the sub-run.
 */
export async function workArtifact(
  input: { readonly run: RunPorts; readonly verifier: ArtifactVerifier; readonly models: ModelRouter; readonly now: () => Date },
  claimed: LoopArtifact,
  criteria: readonly AnyCriterion[],
  loop: Loop,
  signal: AbortSignal,
  /** The sub-run's id, at its first commit and again at its end. */
  onRun: (runId: string) => void,
): Promise<ArtifactWork> {
  const { file } = claimed;
  const { run, verifier, models } = input;
  const level = loop.effort;
  // The sub-run's id from its first commit, not its end: the loop counts and shows a sub-run while it works.
  const onCommit: RunPorts['onCommit'] = (commit) => {
    onRun(commit.run.id);
    run.onCommit?.(commit);
  };
  const { engine, storage } = await composeRun({ ...run, models, learning: false, onCommit });
  const result = await engine.start(
    { request: `Make ${file} meet the ${loop.spec.isc} criteria (loop ${loop.id})`, effort: level, seed: { from: `ISC template ${loop.spec.isc} for ${file}`, criteria }, workspaceFolder: run.files.root },
    signal,
  );
  const runId = result.run.id;
  onRun(runId);
  if (signal.aborted || result.state === 'CANCELLED') throw new CancelledError(`the sub-run of ${file} was cancelled`);
  const candidate = { id: runId, summary: `sub-run ${runId} ended ${result.state}${result.reason ? `: ${result.reason}` : ''}`, evidence: [] as string[] };
  const mechanical = await verifier.verify(criteria, { models, level, parallelism: run.effort.levels[level].parallelism, signal, candidate, ...(result.run.prdPath ? { excludePrd: result.run.prdPath } : {}) });
  const at = input.now().toISOString();
  const base = { file, iteration: loop.iteration, runId, at };
  let notice: LoopNotice | undefined;
  if (!mechanical.passed) {
    notice = { ...base, verdict: 'rejected', reverted: true, by: 'the mechanical verification', failures: mechanicalFailures(file, criteria, mechanical) };
  } else {
    const decision = await validateArtifact({ file, text: await run.files.readFile(file), runId, summary: candidate.summary, criteria, mechanical, models, role: await verifier.role(), level, signal });
    if (decision.verdict === 'rejected') notice = { ...base, verdict: 'rejected', reverted: true, by: decision.by, failures: [...decision.failures] };
    // Only an edit the validator approved is kept: one it could not judge is put back, and worked again in the next iteration.
    else if (decision.verdict === 'not-consulted') notice = { ...base, verdict: 'not-consulted', reverted: true, by: decision.by, failures: [] };
  }
  let kept: ArtifactVerification | undefined = mechanical;
  if (notice?.reverted) {
    const undo = await undoRunChanges(storage.checkpoints(runId).filter((c) => c.path !== result.run.prdPath), run.files);
    // A file edited by someone else since the sub-run is left as it is, and the notice says so.
    if (undo.left.length > 0) notice = { ...notice, reverted: false, by: `${notice.by}; not put back: ${undo.left.map((l) => `${l.path} (${l.reason})`).join(', ')}` };
    // Nothing to put back: the notice says the sub-run changed nothing, not that a file was restored.
    else if (undo.changed.length === 0) notice = { ...notice, reverted: false, unchanged: true };
    kept = undefined;
  }
  const next: LoopArtifact = {
    ...claimed,
    status: kept ? 'PASSING' : 'FAILING',
    iteration: loop.iteration,
    workedIteration: loop.iteration,
    runId,
    runIds: [...claimed.runIds, runId],
    outcomes: kept ? kept.outcomes : claimed.outcomes,
    evidence: kept ? kept.evidence : claimed.evidence,
    notices: notice ? [...claimed.notices, notice] : claimed.notices,
  };
  return { next, ...(notice ? { notice } : {}) };
}
