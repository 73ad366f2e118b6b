import { readPrdFile } from '../cli/prd-check';
import { verifyPrdFile, writeAtomically } from '../cli/verify-prd';
import { checkPrd, formatDiagnostic } from '../prd';
import { VERIFY_COMMANDS_FILE } from '../verify/verify-commands-file';
import { verifyAnswer, type CriteriaAnswer, type ProposedCriterion, type VerifyAnswer } from '../app/done-gate';
import { proposeCriteria } from '../app/propose-criteria';
import { criteriaRows } from './criteria';
import { resolvePrd, ToolRefusal } from './workspace';

/** What every tool runs with: one workspace, one store. */
export interface ToolContext {
  workspace: string;
  /** The store file; undefined: the workspace's default; false: none. */
  store: string | false | undefined;
  /** Server log (stderr: stdout is the protocol). */
  log: (s: string) => void;
}

export async function criteriaTool(ctx: ToolContext, input: { prd?: string | undefined }): Promise<CriteriaAnswer> {
  const prd = await resolvePrd(ctx.workspace, input.prd);
  const read = await readPrdFile(prd.file);
  if (!read.ok) throw new ToolRefusal(read.diagnostic ? formatDiagnostic(prd.relative, read.diagnostic) : `cannot read ${prd.relative}: ${read.reason}`);
  const { document, diagnostics } = checkPrd(read.text);
  return {
    prd: prd.relative,
    criteriaVersion: document.meta.criteriaVersion ?? 1,
    criteria: await criteriaRows(ctx.workspace, prd.relative, document, ctx.store),
    problems: diagnostics.filter((d) => d.severity === 'error').map((d) => formatDiagnostic(prd.relative, d)),
  };
}

export async function verifyTool(ctx: ToolContext, input: { prd?: string | undefined; criteria?: string[] | undefined; timeoutSeconds?: number | undefined }, signal?: AbortSignal): Promise<VerifyAnswer> {
  const prd = await resolvePrd(ctx.workspace, input.prd);
  const result = await verifyPrdFile({
    file: prd.file,
    workspace: ctx.workspace,
    timeoutSeconds: input.timeoutSeconds ?? 120,
    // No terminal: only the commands the workspace's committed allow-list names run.
    yes: false,
    noCommands: false,
    ...(signal ? { signal } : {}),
    ...(input.criteria && input.criteria.length > 0 ? { only: input.criteria } : {}),
    store: ctx.store,
    warn: ctx.log,
  });
  if (result.kind === 'bad-input') throw new ToolRefusal([`${prd.relative} cannot be verified: ${result.summary.split(prd.file).join(prd.relative)}`, ...result.problems.map((d) => formatDiagnostic(prd.relative, d))].join('\n'));
  if (result.kind !== 'verified') throw new ToolRefusal(result.message.split(prd.file).join(prd.relative));
  // The file's own ids (an ISA's C1, ISC-2.1) with their priorities, as the editor's tool and the gate answer.
  return verifyAnswer(prd.relative, result.prd, result.set, { allowHint: `the user allows commands in ${VERIFY_COMMANDS_FILE}` });
}

/**
 * Adds criteria as a new criteria version (`criteria_version` + 1) with a LOG entry, but only
 * with `confirm: true`: an MCP server cannot show the user a confirmation, so the agent must
 * show the criteria to the user and come back with their yes. Without it, nothing is written
 * and the answer is the preview.
 */
export async function proposeTool(ctx: ToolContext, input: { prd?: string | undefined; criteria: ProposedCriterion[]; confirm?: boolean | undefined }): Promise<{ prd: string; written: boolean; criteriaVersion: number; added: string[]; preview: string[]; note: string }> {
  const prd = await resolvePrd(ctx.workspace, input.prd);
  const read = await readPrdFile(prd.file);
  if (!read.ok) throw new ToolRefusal(read.diagnostic ? formatDiagnostic(prd.relative, read.diagnostic) : `cannot read ${prd.relative}: ${read.reason}`);
  const proposal = proposeCriteria(read.text, prd.relative, input.criteria, { today: new Date().toISOString().slice(0, 10), through: 'ideal-state mcp' });
  if (!proposal.ok) throw new ToolRefusal(proposal.message);
  const { added, lines: preview, version } = proposal;
  if (input.confirm !== true) {
    return { prd: prd.relative, written: false, criteriaVersion: proposal.previousVersion, added, preview, note: 'NOT written. Show these lines to the user; call again with confirm: true only after the user agrees to add them.' };
  }
  const current = await readPrdFile(prd.file);
  if (!current.ok || current.text !== read.text) throw new ToolRefusal(`${prd.relative} changed while the criteria were being added; nothing written, try again`);
  await writeAtomically(prd.file, proposal.after);
  return { prd: prd.relative, written: true, criteriaVersion: version, added, preview, note: `Added as criteria version ${version}. Verify them with ideal-state_verify.` };
}
