export * from './model';
export { parseIsa } from './parse';
export { checkIsa, lintIsa, isaProgress } from './lint';
export { planProbe, probeCommand } from './probe';
export { writeIsaOutcomes, type IsaWriteOptions } from './write';
export { isaCompletionProblems, type IsaCompletionProblem } from './completion';
export { isKnownCheckType } from './probe';
