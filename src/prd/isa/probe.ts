import type { IsaProbe, IsaProbePlan } from './model';

const RUNNABLE = new Set(['bash', 'bun-test', 'bun-property', 'curl']);
/** A tool cell that names only the program (`bash`, `curl`): the command itself is elsewhere, if anywhere. */
const BARE_TOOL = /^(?:bash|sh|zsh|shell|curl|bun|bun test|node|cli|terminal)?$/i;
/** Thresholds that an exit status alone decides. */
const EXIT_ZERO = /^(?:exit(?:s)?\s*(?:code\s*)?0|0|pass(?:es)?|green|)$/i;
const LEADING_CODE = /^`([^`]+)`/;

/**
 * The command a runnable row runs: its `tool` cell (backticks already stripped), or, when the
 * tool is just a program name, the code at the start of `check` if the threshold is an exit
 * status. `check: "\`cli\` output is empty" | tool: bash` names no command that decides it.
 */
export function probeCommand(p: IsaProbe): string | undefined {
  if (!BARE_TOOL.test(p.tool.trim())) return p.tool.trim();
  const code = LEADING_CODE.exec(p.check.trim());
  return code && EXIT_ZERO.test(p.threshold.trim()) ? code[1]!.trim() : undefined;
}

/**
 * What the verifier does with a probe: `bash`, `bun-test`, `bun-property` and `curl` run as
 * commands (CLI: PASS when they exit 0), `eval` goes to the model judge (CUSTOM), and
 * `manual` and `screenshot` are never run: nothing here can see what a person or a capture
 * would, so they stay UNKNOWN and never pass.
 */
export function planProbe(p: IsaProbe): IsaProbePlan {
  if (RUNNABLE.has(p.type)) {
    const command = probeCommand(p);
    if (command) return { kind: 'method', method: { type: 'CLI', command } };
    return { kind: 'unknown', reason: `its ${p.type} probe names no command to run (tool "${p.tool}"); put the command in the Test Strategy's tool column` };
  }
  switch (p.type) {
    case 'eval': {
      const description = [p.check, p.threshold && `threshold: ${p.threshold}`, p.tool && `tool: ${p.tool}`].filter(Boolean).join('; ');
      return { kind: 'method', method: { type: 'CUSTOM', description: description || 'the eval passes' } };
    }
    case 'manual':
      return { kind: 'unknown', reason: `a manual probe: a person recognises it on encounter${p.check ? ` (${p.check})` : ''}; Ideal State cannot, so it stays UNKNOWN` };
    case 'screenshot':
      return { kind: 'unknown', reason: `a screenshot probe${p.tool ? ` (${p.tool})` : ''}: Ideal State does not capture or judge screenshots, so it stays UNKNOWN` };
    default:
      return { kind: 'unknown', reason: `unknown probe type "${p.type}"; use one of bash, bun-test, bun-property, curl, eval, manual, screenshot` };
  }
}
