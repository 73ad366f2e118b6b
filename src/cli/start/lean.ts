import './one-shot';
import { gateCommand } from '../gate';
import { startProcess } from './process';
import { verifyCommand } from '../verify';

/**
 * The lean command line: `gate` and `verify`, the commands a stop hook and CI start cold at
 * every stop and every build, in one CommonJS file (dist/cli-lean.cjs) that the launcher
 * (src/cli/start/launch.ts) compiles with V8's code cache. Everything else is dist/cli.mjs.
 */
export function run(argv: string[]): void {
  startProcess((args, io) => (args[0] === 'gate' ? gateCommand(args.slice(1), io) : verifyCommand(args.slice(1), io)), argv);
}
