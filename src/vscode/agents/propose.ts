import { engine } from '../engine';
import type { ProposedCriterion } from '../../app/done-gate';
import type { CriteriaProposal } from '../../app/propose-criteria';
import { ToolInputError } from './tool-text';

/** The PRD's whole text with the criteria, the new criteria_version and a LOG entry; the new ids and lines; the version. */
export type ProposedEdit = Extract<CriteriaProposal, { ok: true }>;

/**
 * The criteria added to a PRD as a new criteria version (the one way, src/app/propose-criteria.ts,
 * the MCP server's too), or a refusal that says why and writes nothing. prepareInvocation
 * shows it, invoke writes it.
 */
export function proposeEdit(text: string, relative: string, criteria: readonly ProposedCriterion[], today: string): ProposedEdit {
  const proposal = engine().proposeCriteria(text, relative, criteria, { today, through: 'the ideal-state_propose_criteria tool' });
  if (!proposal.ok) throw new ToolInputError(proposal.message);
  return proposal;
}
