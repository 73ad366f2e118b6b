// The done gate's answers moved to src/app/gate/answers.ts; this name stays for the adapters that import it.
export * from './gate/answers';
export * from './gate/answer-shapes';
