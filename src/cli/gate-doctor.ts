import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { readHostConfig } from '../app/gate/doctor/host-config';
import { hostReport } from '../app/gate/doctor/report';
import { HOST_ADAPTERS } from '../app/gate/hosts';
import { heldPrds, heldSet, type HeldSet } from '../app/gate/held';
import { LOCK_NAMES } from '../app/gate/lock';
import { lockHistoryLine } from '../app/gate/lock-events';
import { gateStateFolder } from '../app/gate/state-folder';
import type { VerifyIo } from './verify';

export const GATE_DOCTOR_USAGE = `Usage: ideal-state gate doctor [--workspace DIR]

For each host whose configuration names the gate, reads it the way the host does (for Claude
Code every settings layer: managed, .claude/settings.local.json, .claude/settings.json,
~/.claude/settings.json or CLAUDE_CONFIG_DIR, managed-settings.d; disableAllHooks, the exact
Stop key, the other Stop hooks, env; for Codex, Gemini CLI and Qwen Code their user and system
layers and the keys that switch hooks off), and
only if the host would run the gate, runs that exact command line once with the host's
environment and a payload in its shape (a dry stop: --no-log --no-store, nothing written). Says
whether the host would block its agent now, why, and each way around the gate on this machine.
`;

export { wouldBlock } from '../app/gate/doctor/dry-stop';

export async function gateDoctorCommand(argv: string[], io: VerifyIo): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: { workspace: { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } } }));
  } catch (error) {
    io.err(`ideal-state gate doctor: ${(error as Error).message}\n\n${GATE_DOCTOR_USAGE}`);
    return 2;
  }
  if (values.help) {
    io.out(GATE_DOCTOR_USAGE);
    return 0;
  }
  const workspace = path.resolve(values.workspace ?? process.cwd());
  io.out(heldLines(workspace, await heldSet(workspace)));
  io.out(await lockHistoryLine(await gateStateFolder(workspace), LOCK_NAMES));
  let found = 0;
  for (const adapter of HOST_ADAPTERS) {
    const findings = await readHostConfig(adapter, workspace);
    if (!findings) continue;
    found++;
    io.out(await hostReport(adapter, workspace, findings));
  }
  for (const adapter of HOST_ADAPTERS) if (adapter.install.kind === 'none') io.out(`${adapter.name}: no stop gate possible (${adapter.install.why}).`);
  if (found === 0) {
    io.err(`ideal-state gate doctor: no host in ${workspace} runs the gate; \`ideal-state gate install <host>\` writes one`);
    return 1;
  }
  return 0;
}

/** What the gate holds an agent to here, and why: the first thing a person checks. */
function heldLines(workspace: string, held: HeldSet): string {
  if (held.kind === 'damaged') return `The gate holds: nothing it can read (${held.message}); every stop blocks until a person locks the criteria again.`;
  const prds = heldPrds(workspace, held);
  if (prds.length === 0) return 'The gate holds: nothing (no lock, no session baseline, no open PRD with criteria); an agent may stop.';
  return ['The gate holds:', ...prds.map((p) => `  ${p.path} (${p.why})`)].join('\n');
}
