import type { EffortLevel } from '../../model';

/** Why a glob is refused before it is looked up: empty, absolute, or reaching out of the workspace. */
export function globProblem(glob: string): string | undefined {
  const g = glob.trim();
  if (!g) return 'Enter a glob of workspace files, e.g. docs/**/*.md';
  if (g.startsWith('/') || /^[a-zA-Z]:[\\/]/.test(g)) return `"${g}" is an absolute path; give a glob relative to the workspace folder, e.g. docs/**/*.md`;
  if (g.split(/[\\/]/).includes('..')) return `"${g}" reaches outside the workspace folder ("..")`;
  return undefined;
}

/** Why a number of agents is refused: not a whole number from 1 to the level's parallelism. */
export function agentsProblem(text: string, level: EffortLevel, parallelism: number): string | undefined {
  const t = text.trim();
  if (!/^\d+$/.test(t)) return `Enter a whole number of agents from 1 to ${parallelism}`;
  const n = Number(t);
  if (n < 1 || n > parallelism) return `${level} allows 1 to ${parallelism} parallel agent${parallelism === 1 ? '' : 's'}; enter a number in that range (or pick a higher effort level for more)`;
  return undefined;
}
