import { z } from 'zod';
import managerYaml from './data/roles/manager.yaml';
import specialistYaml from './data/roles/specialist.yaml';
import verifierYaml from './data/roles/verifier.yaml';
import { parseYamlDataFile, type DataFileProblem } from '../model/data-file';
import { Phase } from '../model';
import { OUTPUT_SCHEMA_NAMES } from './outputs';

export const ROLE_IDS = ['manager', 'specialist', 'verifier'] as const;
export type RoleId = (typeof ROLE_IDS)[number];

/** Which view of the run a role's prompt is built from; enforced in working-set.ts. */
export const RoleView = z.enum(['manager', 'specialist', 'auditor']);
export type RoleView = z.infer<typeof RoleView>;

/** A role file: system prompt, the view it reads, the output schema per phase, policy. */
export const RoleFile = z
  .object({
    id: z.enum(ROLE_IDS),
    version: z.string().regex(/^\d+\.\d+\.\d+$/, 'versions look like 1.0.0'),
    view: RoleView,
    outputs: z.partialRecord(Phase, z.enum(OUTPUT_SCHEMA_NAMES)),
    policy: z
      .object({
        maxOutputTokens: z.number().int().positive().default(4000),
        temperature: z.number().min(0).max(2).optional(),
      })
      .strict(),
    system: z.string().trim().min(1, 'a role needs a system prompt'),
  })
  .strict();
export type RoleFile = z.infer<typeof RoleFile>;

/** The view each role must read, whatever a file says: a workspace file cannot widen it. */
const REQUIRED_VIEW: Record<RoleId, RoleView> = { manager: 'manager', specialist: 'specialist', verifier: 'auditor' };
const SHIPPED: Record<RoleId, string> = { manager: managerYaml, specialist: specialistYaml, verifier: verifierYaml };

export type Roles = Readonly<Record<RoleId, RoleFile>>;

let shipped: Roles | undefined;

export function shippedRoles(): Roles {
  if (!shipped) {
    const out = {} as Record<RoleId, RoleFile>;
    for (const id of ROLE_IDS) {
      const parsed = parseYamlDataFile(`roles/${id}.yaml (shipped)`, SHIPPED[id], RoleFile);
      if (!parsed.ok) throw new Error(`shipped role ${id} is invalid: ${parsed.problems.map((p) => p.message).join('; ')}`);
      out[id] = parsed.value;
    }
    shipped = out;
  }
  return shipped;
}

/** Workspace-relative folder of role overrides, one `<role>.yaml` each. */
export const WORKSPACE_ROLES_DIR = '.ideal-state/roles';

/** Shipped roles with workspace files replacing them; a broken file is reported and the shipped role kept. */
export function loadRoles(overrides: readonly { file: string; text: string }[] = []): { roles: Roles; problems: readonly DataFileProblem[] } {
  const roles = { ...shippedRoles() } as Record<RoleId, RoleFile>;
  const problems: DataFileProblem[] = [];
  for (const o of overrides) {
    const parsed = parseYamlDataFile(o.file, o.text, RoleFile);
    if (!parsed.ok) {
      problems.push(...parsed.problems);
      continue;
    }
    const role = parsed.value;
    if (role.view !== REQUIRED_VIEW[role.id]) {
      problems.push({ file: o.file, line: 1, column: 1, field: 'view', message: `the ${role.id} role reads the ${REQUIRED_VIEW[role.id]} view; it cannot be changed` });
      continue;
    }
    roles[role.id] = role;
  }
  return { roles, problems };
}
