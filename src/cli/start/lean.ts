import './one-shot';
import { verifyCommand } from '../commands/verify';
import { gateBlockedCommand } from '../gate/blocked';
import { gateDoctorCommand } from '../gate/doctor';
import { gateInstallCommand } from '../gate/install';
import { gateCommand } from '../gate/stop';
import { startProcess, type Command } from './process';

/**
 * The lean command line: `gate` and `verify`, the commands a stop hook and CI start cold at
 * every stop and every build, in one CommonJS file (dist/cli-lean.cjs) that the launcher
 * (src/cli/start/launch.ts) compiles with V8's code cache. Everything else is dist/cli.mjs.
 * The gate's other commands are in the same file and imported as the stop is: the file is
 * compiled whole either way, and a stop with them behind a lazy import measured no faster.
 */
const GATE_COMMANDS: Readonly<Record<string, Command>> = { install: gateInstallCommand, doctor: gateDoctorCommand, blocked: gateBlockedCommand };

export function run(argv: string[]): void {
  startProcess((args, io) => {
    if (args[0] !== 'gate') return verifyCommand(args.slice(1), io);
    const sub = args[1] !== undefined ? GATE_COMMANDS[args[1]] : undefined;
    return sub ? sub(args.slice(2), io) : gateCommand(args.slice(1), io);
  }, argv);
}
