import './one-shot';
import { gateCommand } from '../gate/stop';
import { verifyCommand } from '../commands/verify';
import { startProcess, type Command } from './process';

/**
 * The lean command line: `gate` and `verify`, the commands a stop hook and CI start cold at
 * every stop and every build, in one CommonJS file (dist/cli-lean.cjs) that the launcher
 * (src/cli/start/launch.ts) compiles with V8's code cache. Everything else is dist/cli.mjs.
 * The gate's other commands, which a person runs, are in the file too but run only when named:
 * a stop does not evaluate them.
 */
const GATE_COMMANDS: Readonly<Record<string, Command>> = {
  install: async (argv, io) => (await import('../gate/install.js')).gateInstallCommand(argv, io),
  doctor: async (argv, io) => (await import('../gate/doctor.js')).gateDoctorCommand(argv, io),
  blocked: async (argv, io) => (await import('../gate/blocked.js')).gateBlockedCommand(argv, io),
};

export function run(argv: string[]): void {
  startProcess((args, io) => {
    if (args[0] !== 'gate') return verifyCommand(args.slice(1), io);
    const sub = args[1] !== undefined ? GATE_COMMANDS[args[1]] : undefined;
    return sub ? sub(args.slice(2), io) : gateCommand(args.slice(1), io);
  }, argv);
}
