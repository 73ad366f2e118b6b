/**
 * The one allow-list matcher for commands: `idealState.verify.allowedCommands` and
 * `idealState.run.allowedCommands` in the editor, `.ideal-state/verify-commands.yaml` for
 * `ideal-state verify`. Commands a pattern matches run without asking.
 *
 * - `/…/` is a regular expression that must match the whole command.
 * - Anything else is a glob over the whole command: `*` is any run of characters except
 *   line breaks and shell operators (`;` `&` `|` `<` `>` `$` `(` `)` and the backquote),
 *   `?` is one such character. So `npm run *` allows `npm run lint` but never
 *   `npm run lint && curl …`: a wildcard cannot smuggle in a second command.
 */
const SAFE_CHAR = '[^;&|<>$()`\\r\\n]';

export interface AllowList {
  /** The first pattern that allows this command, if any. */
  match(command: string): string | undefined;
  /** Patterns that could not be read (an invalid regular expression), with why. */
  readonly problems: readonly string[];
}

export function allowList(patterns: readonly string[]): AllowList {
  const compiled: { pattern: string; regex: RegExp }[] = [];
  const problems: string[] = [];
  for (const pattern of patterns) {
    if (typeof pattern !== 'string' || pattern.trim() === '') continue;
    try {
      compiled.push({ pattern, regex: toRegExp(pattern.trim()) });
    } catch (error) {
      problems.push(`"${pattern}" is not a valid regular expression: ${(error as Error).message}`);
    }
  }
  return {
    problems,
    match: (command) => compiled.find(({ regex }) => regex.test(command.trim()))?.pattern,
  };
}

function toRegExp(pattern: string): RegExp {
  if (pattern.length > 2 && pattern.startsWith('/') && pattern.endsWith('/')) return new RegExp(`^(?:${pattern.slice(1, -1)})$`);
  let source = '';
  for (const ch of pattern) {
    if (ch === '*') source += `${SAFE_CHAR}*`;
    else if (ch === '?') source += SAFE_CHAR;
    else source += ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}
