import { z } from 'zod';
import { parseYamlDataFile, type DataFileProblem } from '../model/data-file';
import { allowList, type AllowList } from './allowed-commands';

/**
 * `.ideal-state/verify-commands.yaml`: the PRD commands `ideal-state verify` may run where
 * there is no terminal to ask (CI). It is committed with the code and reviewed like it, so a
 * command a model wrote into a PRD does not run in CI until a person put it here.
 *
 *   commands:
 *     - npm test
 *     - npm run *          # `*` never spans a shell operator: not `npm run x && curl …`
 *     - "task: build"
 *
 * Patterns are read by the one allow-list matcher (allowed-commands.ts).
 */
export { VERIFY_COMMANDS_FILE } from './verify-commands-path';

const Pattern = z
  .string()
  .trim()
  .min(1, 'an empty pattern allows nothing; remove it')
  .refine((p) => allowList([p]).problems.length === 0, { message: 'not a valid /regular expression/' });

export const VerifyCommandsFile = z.object({ version: z.literal(1).optional(), commands: z.array(Pattern) }).strict();

export type VerifyCommands = { ok: true; list: AllowList; count: number } | { ok: false; problems: DataFileProblem[] };

export function readVerifyCommands(file: string, text: string): VerifyCommands {
  if (last?.file === file && last.text === text) return last.read;
  const parsed = parseYamlDataFile(file, text, VerifyCommandsFile);
  const read: VerifyCommands = parsed.ok ? { ok: true, list: allowList(parsed.value.commands), count: parsed.value.commands.length } : parsed;
  last = { file, text, read: Object.freeze(read) };
  return read;
}

/** The last list read, by its file and text: the MCP server reads the same list at every call (its YAML parse cost about a millisecond). Its answer never changes once made. */
let last: { file: string; text: string; read: VerifyCommands } | undefined;
