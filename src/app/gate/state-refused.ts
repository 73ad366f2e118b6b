import { stateRootFor } from './state-folder';
import type { GateDecision } from './verdict';

/**
 * A state folder variable the gate refused (one inside the workspace, or one a workspace settings
 * file sets) is not a detail to note beside a pass: the person's own variable, where their lock
 * is, may be the one it replaced (a host's `env` overrides the variable the host started with),
 * and the default folder the gate then reads has no lock. A stop that would have been let through
 * is blocked instead, with what was refused and what to do; a stop that blocks anyway says it
 * too. At the limit of blocks in a row the stop goes through with the warning, as every block.
 * With no variable set, or one that is the person's, nothing changes.
 */
export async function stateFolderRefusal(workspace: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const { refused, root } = await stateRootFor(workspace, env);
  if (refused.length === 0) return undefined;
  return [
    `Ideal State: refused: ${refused.map((r) => r.replace(/ and keeps its state in .*$/, '')).join('; ')}.`,
    `The gate's state (the person's criteria lock, the block counter) lives outside the workspace because the agent must not move it; without the variable it would read ${root}, which may not be where the person's lock is.`,
    'Remove that variable from the workspace settings (`env` in .claude/settings.local.json or .claude/settings.json) and from the host\'s environment; a person who keeps state elsewhere sets it where the host starts (their shell), to a folder outside the workspace.',
  ].join('\n');
}

/**
 * The verdict when a state folder variable was refused: an allow becomes a block (below the
 * limit of blocks in a row), whose details are the refusal the answer's notes carry; a block
 * stays as it is (its notes carry the refusal too).
 */
export function withStateRefusal(verdict: GateDecision, refusal: string | undefined, context: { before: number; maxBlocks: number }): GateDecision {
  if (refusal === undefined || verdict.kind === 'block') return verdict;
  const summary = "Ideal State: not verified against the person's lock: a state folder variable was refused (below).";
  if (context.before >= context.maxBlocks) return { kind: 'allow', note: [verdict.note, `${summary}\nThe agent was kept working ${context.before} time${context.before === 1 ? '' : 's'} in a row (--max-blocks ${context.maxBlocks}) and may stop now, unverified.`].filter(Boolean).join('\n') };
  return { kind: 'block', reason: summary, summary };
}
