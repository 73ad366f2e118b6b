import { z } from 'zod';
import capabilitiesYaml from './data/capabilities.yaml';
import { parseYamlDataFile, type DataFileProblem } from '../model/data-file';
import { EFFORT_LEVELS, type EffortLevel } from '../model';

export const AGENT_TOOLS = ['read_file', 'list_files', 'search', 'edit_file', 'create_file', 'run_command'] as const;
export const AgentToolName = z.enum(AGENT_TOOLS);
export type AgentToolName = z.infer<typeof AgentToolName>;

const Tier = z.enum(['local', 'frontier']);
export const LevelCapabilities = z
  .object({
    tools: z.array(AgentToolName),
    /** Model turns one specialist may take on one packet. */
    agentSteps: z.number().int().positive(),
    /** The model class each role starts on (routing may still escalate). */
    models: z.object({ manager: Tier, specialist: Tier, verifier: Tier }).strict(),
  })
  .strict();
export type LevelCapabilities = z.infer<typeof LevelCapabilities>;

const levels = <T extends z.ZodType>(t: T) => z.object(Object.fromEntries(EFFORT_LEVELS.map((l) => [l, t])) as Record<EffortLevel, T>).strict();
export const Capabilities = z.object({ version: z.literal(1), levels: levels(LevelCapabilities) }).strict();
export type Capabilities = z.infer<typeof Capabilities>;
const CapabilitiesOverride = z.object({ version: z.literal(1), levels: levels(LevelCapabilities.partial().optional()).partial().optional() }).strict();

export const SHIPPED_CAPABILITIES_FILE = 'capabilities.yaml (shipped)';
export const WORKSPACE_CAPABILITIES_FILE = '.ideal-state/capabilities.yaml';

let shipped: Capabilities | undefined;

export function shippedCapabilities(): Capabilities {
  if (!shipped) {
    const parsed = parseYamlDataFile(SHIPPED_CAPABILITIES_FILE, capabilitiesYaml, Capabilities);
    if (!parsed.ok) throw new Error(`shipped capabilities are invalid: ${parsed.problems.map((p) => p.message).join('; ')}`);
    shipped = parsed.value;
  }
  return shipped;
}

/** The capability loader: the shipped file with a workspace override merged per level. */
export function loadCapabilities(override?: { file: string; text: string }): { capabilities: Capabilities; problems: readonly DataFileProblem[] } {
  const base = shippedCapabilities();
  if (!override) return { capabilities: base, problems: [] };
  const parsed = parseYamlDataFile(override.file, override.text, CapabilitiesOverride);
  if (!parsed.ok) return { capabilities: base, problems: parsed.problems };
  const merged = { version: 1 as const, levels: { ...base.levels } };
  for (const level of EFFORT_LEVELS) {
    const patch = parsed.value.levels?.[level];
    if (patch) merged.levels[level] = { ...merged.levels[level], ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) };
  }
  return { capabilities: merged, problems: [] };
}
