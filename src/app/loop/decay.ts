import { EFFORT_LEVELS, type EffortLevel } from '../../model';

/** Effort of iteration k: the loop's level for the first three, then one level lower, never below STANDARD. */
export function effortForIteration(level: EffortLevel, iteration: number): EffortLevel {
  const i = EFFORT_LEVELS.indexOf(level);
  const standard = EFFORT_LEVELS.indexOf('STANDARD');
  if (iteration <= 3 || i <= standard) return level;
  return EFFORT_LEVELS[i - 1]!;
}
