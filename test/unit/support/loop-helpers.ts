import * as fs from 'node:fs';
import * as path from 'node:path';
import { denyAll } from '../../../src/agent/approvals';
import { NodeWorkspace } from '../../../src/agent/node-workspace';
import type { RunPorts } from '../../../src/app/compose-run';
import type { LoopPorts } from '../../../src/app/loop';
import { shippedEffortTable } from '../../../src/model/effort-table';
import { IscDefinition } from '../../../src/model';
import { Store } from '../../../src/store/store';
import { scriptedRouter, tempDir, type Step } from './algorithm-helpers';

/** A template whose four criteria are GREPs on the artifact itself (so no model judges them). */
export const LOOP_TEMPLATE: IscDefinition = IscDefinition.parse({
  artifactType: 'test.loop-page',
  version: '1.0.0',
  description: 'A page the loop tests work on.',
  minCriteria: 3,
  scaleTier: 'SIMPLE',
  idealCriteria: [
    { id: 'ISC-LOOP-001', text: 'Page holds the done marker line', verify: { type: 'GREP', pattern: '^done$' } },
    { id: 'ISC-LOOP-002', text: 'Page heading names the page ${name}', verify: { type: 'GREP', pattern: '^# ${name}$', glob: '${file}' } },
    { id: 'ISC-LOOP-003', text: 'Page ends with the footer marker line', verify: { type: 'GREP', pattern: '^footer$' } },
  ],
  antiCriteria: [{ id: 'ISC-A-LOOP-001', text: 'No placeholder TODO text remains on the page', verify: { type: 'GREP', pattern: 'TODO', expect: 'absent' } }],
});

export const goodPage = (name: string) => `# ${name}\n\ndone\n\nfooter\n`;
export const badPage = (name: string) => `# ${name}\n\nTODO write me\n`;

/** A workspace of `count` pages under docs/, the first `failing` of them bad. */
export function loopWorkspace(count: number, failing: number): { workspace: string; files: string[] } {
  const workspace = tempDir('loop-ws');
  fs.mkdirSync(path.join(workspace, 'docs'), { recursive: true });
  const files: string[] = [];
  for (let i = 0; i < count; i++) {
    const name = `page-${String(i + 1).padStart(3, '0')}`;
    const rel = `docs/${name}.md`;
    fs.writeFileSync(path.join(workspace, rel), i < failing ? badPage(name) : goodPage(name));
    files.push(rel);
  }
  return { workspace, files };
}

const IDS = ['ISC-LOOP-001', 'ISC-LOOP-002', 'ISC-LOOP-003', 'ISC-A-LOOP-001'];

/** One artifact's sub-run, scripted: the manager's four answers, a specialist that writes `text`, then the validator's verdicts. */
export function subRunSteps(file: string, text: string, o: { verdict?: 'PASS' | 'FAIL'; specialistDelayMs?: number; validator?: boolean } = {}): Step[] {
  const name = path.posix.basename(file, '.md');
  const drafts = [
    { id: IDS[0], text: 'Page holds the done marker line', source: 'EXPLICIT' },
    { id: IDS[1], text: `Page heading names the page ${name}`, source: 'EXPLICIT' },
    { id: IDS[2], text: 'Page ends with the footer marker line', source: 'EXPLICIT' },
    { id: IDS[3], text: 'No placeholder TODO text remains on the page', source: 'EXPLICIT', anti: true },
  ];
  const methods = [
    { type: 'GREP', pattern: '^done$', glob: file },
    { type: 'GREP', pattern: `^# ${name}$`, glob: file },
    { type: 'GREP', pattern: '^footer$', glob: file },
    { type: 'GREP', pattern: 'TODO', glob: file, expect: 'absent' },
  ];
  const steps: Step[] = [
    { object: { criteria: drafts, decisions: [] } },
    { object: { criteria: drafts } },
    { object: { packets: [{ title: `Fix ${file}`, criterionIds: IDS }] } },
    { object: { methods: IDS.map((criterionId, i) => ({ criterionId, verify: methods[i] })) } },
    { toolCalls: [{ name: 'create_file', arguments: { path: file, text } }], ...(o.specialistDelayMs ? { delayMs: o.specialistDelayMs } : {}) },
    { text: JSON.stringify({ summary: `Rewrote ${file}`, evidence: [`${file} written`] }) },
  ];
  if (o.validator !== false) for (const _ of IDS) steps.push({ object: { outcome: o.verdict ?? 'PASS', evidence: o.verdict === 'FAIL' ? 'the page reads like a stub' : 'holds' } });
  return steps;
}

export interface LoopHarness {
  workspace: string;
  store: Store;
  storeFile: string;
  ports: LoopPorts;
  scriptsUsed: Map<string, number>;
  close(): void;
}

/** Loop ports over a workspace: each artifact's sub-run gets its own scripted router from `script(file)`. */
export async function loopHarness(workspace: string, script: (file: string) => Step[], o: { storeFile?: string; onLog?: (l: string) => void; noModels?: boolean } = {}): Promise<LoopHarness> {
  const storeFile = o.storeFile ?? path.join(tempDir('loop-store'), 'db.sqlite');
  const store = await Store.open({ file: storeFile, checkpointIdleMs: 60_000 });
  const scriptsUsed = new Map<string, number>();
  const run: RunPorts = {
    files: new NodeWorkspace(workspace),
    store,
    models: scriptedRouter([{ text: 'unused' }]).router,
    effort: shippedEffortTable(),
    approver: denyAll,
    trusted: true,
    autoApproveEdits: true,
    readOverride: async () => undefined,
    learning: false,
    verifyTimeoutMs: 20_000,
  };
  const ports: LoopPorts = {
    run,
    definition: LOOP_TEMPLATE,
    modelsFor: (file) => {
      scriptsUsed.set(file, (scriptsUsed.get(file) ?? 0) + 1);
      return scriptedRouter(script(file)).router;
    },
    ...(o.onLog ? { onLog: o.onLog } : {}),
  };
  return { workspace, store, storeFile, ports, scriptsUsed, close: () => store.close() };
}
