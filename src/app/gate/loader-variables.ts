import { isLoaderVariable, loaderVariablesIn } from '../../verify/secret-env';

/**
 * Removes the loader variables (NODE_OPTIONS, npm_config_*, LD_PRELOAD, …) from the gate's own
 * environment, so nothing it starts gets them (every check's environment drops them as well,
 * src/verify/secret-env.ts), and says which were there: all of them on stderr; in the answer
 * only those that load code (a host started with `npx` passes npm_config_* to every hook, and
 * that is no one's doing). Node has already applied NODE_OPTIONS to the gate itself by then:
 * the note says so, for the person to look at what set it.
 */
export function dropLoaderVariables(env: NodeJS.ProcessEnv): { stderr: string[]; notes: string[] } {
  const names = loaderVariablesIn(env);
  if (names.length === 0) return { stderr: [], notes: [] };
  const preload = /(^|\s)(-r|--require|--import|--loader|--experimental-loader)(\s|=|$)/.test(env.NODE_OPTIONS ?? '');
  const loading = names.filter((n) => (n === 'NODE_OPTIONS' ? preload : CODE_LOADING.has(n)));
  for (const name of Object.keys(env)) if (isLoaderVariable(name)) delete env[name];
  if (env !== process.env) for (const name of Object.keys(process.env)) if (isLoaderVariable(name)) delete process.env[name];
  const list = (xs: readonly string[]) => (xs.length > 6 ? `${xs.slice(0, 6).join(', ')} and ${xs.length - 6} more` : xs.join(', '));
  const stderr = [`Ideal State: the checks run without ${list(names)} (set in the gate's environment).`];
  const notes =
    loading.length === 0
      ? []
      : [`Ideal State: ${list(loading)} ${loading.length === 1 ? 'was' : 'were'} set in the gate's environment (by the host, or an \`env\` in its settings) to load code into the programs it starts; the checks ran without ${loading.length === 1 ? 'it' : 'them'}.${preload ? ' Node loaded what NODE_OPTIONS names into the gate itself before the gate could remove it: look at what set it.' : ''}`];
  return { stderr, notes };
}

/** The variables whose only use is to load code into a program: worth the user's attention when they reach the gate. */
const CODE_LOADING = new Set(['LD_PRELOAD', 'LD_AUDIT', 'DYLD_INSERT_LIBRARIES', 'NODE_REPL_EXTERNAL_MODULE', 'BASH_ENV', 'PERL5OPT', 'RUBYOPT']);

