import { z } from 'zod';
import shippedGraph from './data/phase-graph.yaml';
import { parseYamlDataFile, type DataFileProblem } from '../model/data-file';
import { FailureLabel, Phase } from '../model';

export const GATES = ['min-criteria', 'testable', 'covered', 'specific', 'final-status', 'report', 'none'] as const;
export const GateName = z.enum(GATES);
export type GateName = z.infer<typeof GateName>;

export const NodeRole = z.enum(['manager', 'specialist', 'verifier', 'system']);
export type NodeRole = z.infer<typeof NodeRole>;

export const PhaseNode = z
  .object({
    role: NodeRole,
    gate: GateName,
    next: Phase.optional(),
    on_fail: Phase.optional(),
    retries: z.number().int().nonnegative().max(5).default(0),
    budget: z.number().min(0).max(1),
    end: z.boolean().default(false),
  })
  .strict()
  .refine((n) => n.end || n.next !== undefined, { message: 'a node that is not the end needs `next`', path: ['next'] });
export type PhaseNode = z.infer<typeof PhaseNode>;

/** The phase graph file: nodes by phase, the entry, and loop-backs by failure label. */
export const PhaseGraph = z
  .object({
    version: z.literal(1),
    entry: Phase,
    nodes: z.partialRecord(Phase, PhaseNode),
    loop_back: z.partialRecord(FailureLabel, Phase).default({}),
    replan_after: z.number().int().positive().default(2),
  })
  .strict()
  .superRefine((g, ctx) => {
    if (!g.nodes[g.entry]) ctx.addIssue({ code: 'custom', path: ['entry'], message: `entry ${g.entry} is not a node` });
    for (const [name, node] of Object.entries(g.nodes)) {
      for (const key of ['next', 'on_fail'] as const) {
        const target = node?.[key];
        if (target && !g.nodes[target]) ctx.addIssue({ code: 'custom', path: ['nodes', name, key], message: `${target} is not a node of this graph` });
      }
    }
    for (const [label, target] of Object.entries(g.loop_back)) {
      if (target && !g.nodes[target]) ctx.addIssue({ code: 'custom', path: ['loop_back', label], message: `${target} is not a node of this graph` });
    }
    if (!Object.values(g.nodes).some((n) => n?.end)) ctx.addIssue({ code: 'custom', path: ['nodes'], message: 'the graph needs a node with `end: true`' });
  });
export type PhaseGraph = z.infer<typeof PhaseGraph>;

export const SHIPPED_PHASE_GRAPH_FILE = 'phase-graph.yaml (shipped)';
/** Workspace-relative path of the file that replaces the shipped graph. */
export const WORKSPACE_PHASE_GRAPH_FILE = '.ideal-state/phase-graph.yaml';

let shipped: PhaseGraph | undefined;

export function shippedPhaseGraph(): PhaseGraph {
  if (!shipped) {
    const parsed = parseYamlDataFile(SHIPPED_PHASE_GRAPH_FILE, shippedGraph, PhaseGraph);
    if (!parsed.ok) throw new Error(`shipped phase graph is invalid: ${parsed.problems.map((p) => p.message).join('; ')}`);
    shipped = parsed.value;
  }
  return shipped;
}

/** The workspace graph when it is valid; otherwise the shipped one, with the located problems. */
export function loadPhaseGraph(override?: { file: string; text: string }): { graph: PhaseGraph; problems: readonly DataFileProblem[] } {
  if (!override) return { graph: shippedPhaseGraph(), problems: [] };
  const parsed = parseYamlDataFile(override.file, override.text, PhaseGraph);
  return parsed.ok ? { graph: parsed.value, problems: [] } : { graph: shippedPhaseGraph(), problems: parsed.problems };
}

export function nodeOf(graph: PhaseGraph, phase: Phase): PhaseNode {
  const node = graph.nodes[phase];
  if (!node) throw new Error(`the phase graph has no node ${phase}`);
  return node;
}
