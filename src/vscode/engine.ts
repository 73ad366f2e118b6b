type Engine = typeof import('../engine');

let loaded: Engine | undefined;

/** The engine bundle beside this one, required on first use (see src/engine.ts). */
export function engine(): Engine {
  // A variable, so the bundler leaves this require to run time.
  const bundle = './engine.js';
  loaded ??= require(bundle) as Engine;
  return loaded;
}

/** Whether anything has needed the engine yet: activation must not (it costs zod, yaml and sql.js). */
export function engineLoaded(): boolean {
  return loaded !== undefined;
}
