import type { YamlLimits } from '../model/yaml-bounded';
export { sizeText } from '../model/yaml-bounded';
import type { PrdDiagnostic } from './diagnostics';

/**
 * How much of a PRD the parser reads. A PRD can come from a cloned repository or a model, and
 * it is parsed on every keystroke in the editor, so its size is bounded: past a limit the
 * parser says where and what, and reads the rest as usual (or, for the whole file, nothing).
 * Real PRDs are a few KB; these are orders of magnitude above that.
 */
export const PRD_LIMITS = {
  /**
   * The whole file (characters; the command line refuses a file of more bytes before reading
   * it). 2 MB of the worst kind (one duplicate criterion per line) takes about 2 s and 400 MB
   * to check; 5 MB took 4 s and 900 MB, too much for a small CI machine.
   */
  maxChars: 2 * 1024 * 1024,
  /** One line: longer lines are reported and read as blank. */
  maxLineChars: 64 * 1024,
  /** The YAML between the frontmatter fences. */
  frontmatterYaml: { maxChars: 64 * 1024, maxDepth: 64, maxAliasCount: 100 } satisfies YamlLimits,
} as const;

/** Rules of the diagnostics that say a limit was hit: the input is refused, not merely wrong. */
export const INPUT_LIMIT_RULES: ReadonlySet<string> = new Set(['prd-too-large', 'line-too-long', 'frontmatter-too-large', 'yaml-limit']);

export function isInputLimit(d: Pick<PrdDiagnostic, 'rule'>): boolean {
  return INPUT_LIMIT_RULES.has(d.rule);
}
