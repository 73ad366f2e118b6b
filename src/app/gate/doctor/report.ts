import { hookProblem } from '../hook-command';
import type { HostAdapter } from '../hosts';
import { runDryStop, samplePayload, wouldBlock } from './dry-stop';
import { launcherWords, shellWords, type HostFindings } from './findings';
import { launcherInWorkspace } from '../launcher-reach';

/**
 * One host's lines of `gate doctor`: "would block" only after a dry stop through exactly what
 * the host would run (command and environment); a gate the host never starts is "would let the
 * agent stop" with the cause, and no dry stop. Then each way around the gate, and the notes.
 */
export async function hostReport(adapter: HostAdapter, workspace: string, findings: HostFindings): Promise<string> {
  const lines: string[] = [];
  if (findings.neverRuns.length > 0 || findings.command === undefined) {
    lines.push(`${adapter.name}: would let the agent stop: ${findings.neverRuns.join('; ')} (the gate never runs)`);
  } else {
    const r = await runDryStop(findings.command, samplePayload(adapter.id, workspace), workspace, findings.env);
    const verdict = wouldBlock(adapter.id, r.code, r.stdout);
    lines.push(`${adapter.name}: ${verdict.block ? 'would block' : 'would let the agent stop'} (${findings.installedIn}: \`${findings.command}\`)`);
    if (verdict.why) lines.push(`  ${verdict.why}`);
    // The dry stop ran what the workspace holds: that, not the gate, is what answered.
    const reach = verdict.block ? undefined : launcherInWorkspace(launcherWords(shellWords(findings.command)), workspace, findings.env.PATH ?? '');
    if (reach) lines.push(`  Cause: the installed command resolves inside the workspace: ${reach.why}; run \`ideal-state gate install\` again (without --command) to write absolute paths outside it`);
    const problem = hookProblem(r, findings.command);
    if (problem) lines.push(`  ${problem}`);
    else if (r.code !== 0 && adapter.id !== 'kiro') lines.push(`  the hook exited ${r.code}: ${r.stderr.trim().split('\n')[0] ?? ''}`);
  }
  for (const b of findings.bypasses) lines.push(`  Bypassable: ${b}`);
  for (const n of findings.notes) lines.push(`  Note: ${n}`);
  return lines.join('\n');
}
