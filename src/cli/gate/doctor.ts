import * as path from 'node:path';
import { readHostConfig } from '../../app/gate/doctor/host-config';
import { hostReport } from '../../app/gate/doctor/report';
import { HOST_ADAPTERS } from '../../app/gate/hosts';
import { heldPrds, heldSet, type HeldSet } from '../../app/gate/held';
import { LOCK_NAMES } from '../../app/gate/lock';
import { lockHistoryLine } from '../../app/gate/lock-events';
import { gateStateFolder } from '../../app/gate/state-folder';
import { defineCommand } from '../shared/command';
import type { CliIo } from '../shared/io';
import { GATE_DOCTOR_USAGE } from './usage';

const DOCTOR = defineCommand({ name: 'ideal-state gate doctor', usage: GATE_DOCTOR_USAGE, options: { workspace: { type: 'string' } }, positionals: false });

/** `ideal-state gate doctor`: what the gate holds here, and what each host would run at a stop. */
export async function gateDoctorCommand(argv: string[], io: CliIo): Promise<number> {
  const parsed = DOCTOR.parse(argv, io);
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
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
