import { resolveEffortLevel } from '../model/effort-table';
import type { EffortLevel, EffortTable } from '../model';

export interface Classification {
  readonly level: EffortLevel;
  /** The request with an explicit "effort LEVEL:" prefix removed. */
  readonly request: string;
  /** Why this level, for the run's first event. */
  readonly reasons: readonly string[];
}

const PREFIX = /^\s*(?:algorithm\s+)?effort\s+([A-Za-z_]+)\s*:\s*/i;

const CUES: readonly { readonly name: string; readonly pattern: RegExp; readonly weight: number }[] = [
  { name: 'multi-step', pattern: /\b(then|after that|and also|steps?|first\b.*\bthen|finally)\b/i, weight: 1 },
  { name: 'file scope', pattern: /\b(files|modules|across|every|all (the )?(files|components|pages)|codebase|project-wide|refactor)\b/i, weight: 2 },
  { name: 'research', pattern: /\b(research|investigate|compare|evaluate|analy[sz]e|survey|benchmark)\b/i, weight: 2 },
  { name: 'integration', pattern: /\b(integrat\w*|api|database|migrat\w*|auth\w*|deploy\w*|pipeline|end-to-end)\b/i, weight: 2 },
  { name: 'trivial', pattern: /^\s*(fix (a )?typo|rename|what is|explain|add a comment)\b/i, weight: -3 },
];

/**
 * The effort classifier for "Auto": an explicit
 * "effort EXTENDED: …" prefix wins (aliases too); otherwise cues in the request
 * (multi-step, file scope, research, integration) and its length pick a level.
 */
export function classifyEffort(request: string, table: EffortTable): Classification {
  const explicit = PREFIX.exec(request);
  if (explicit) {
    const found = resolveEffortLevel(explicit[1]!, table);
    if (found.ok) return { level: found.level, request: request.slice(explicit[0].length).trim(), reasons: [`explicit prefix "${explicit[1]}"`] };
  }
  let score = 0;
  const reasons: string[] = [];
  for (const cue of CUES) {
    if (cue.pattern.test(request)) {
      score += cue.weight;
      reasons.push(cue.name);
    }
  }
  const words = request.trim().split(/\s+/).filter(Boolean).length;
  if (words > 60) {
    score += 2;
    reasons.push('long request');
  } else if (words > 25) {
    score += 1;
    reasons.push('detailed request');
  }
  const level: EffortLevel = score <= -1 ? 'INSTANT' : score === 0 ? (words <= 8 ? 'FAST' : 'STANDARD') : score <= 2 ? 'STANDARD' : score <= 4 ? 'EXTENDED' : score <= 6 ? 'ADVANCED' : 'DEEP';
  return { level, request: request.trim(), reasons: reasons.length > 0 ? reasons : ['no complexity cues'] };
}
