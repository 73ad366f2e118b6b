import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import type { CliIo } from './io';

/** The exit code of a command line a command cannot take: an unknown option, a missing argument. */
export const USAGE_EXIT = 2;

const HELP = { help: { type: 'boolean', short: 'h', default: false } } as const;

type WithHelp<O extends ParseArgsOptionsConfig> = O & typeof HELP;

/** A command's arguments as read: its options by name and its words. */
export type CommandArgs<O extends ParseArgsOptionsConfig> = ReturnType<typeof parseArgs<{ args: string[]; options: WithHelp<O>; allowPositionals: true }>>;

export interface CommandDefinition<O extends ParseArgsOptionsConfig> {
  /** How its error lines begin: `ideal-state`, or `ideal-state loop` where the command names itself. */
  readonly name: string;
  /** Said after a usage error. */
  readonly usage: string;
  /** Printed for `--help` (default: the usage, under a `Usage:` line when it has none). */
  readonly help?: string;
  /** Its options; `-h, --help` is every command's. */
  readonly options: O;
  /** Whether it takes words besides its options (default: it does). */
  readonly positionals?: boolean;
}

/**
 * One command of the command line: how it reads its arguments, what it says when it cannot,
 * and the exit code it then ends with. Every command reads its arguments through one, so
 * `--help` and a usage error mean the same everywhere.
 */
export interface Command<O extends ParseArgsOptionsConfig> extends CommandDefinition<O> {
  /**
   * The arguments, or the exit code to end with: 0 after printing the help it was asked for,
   * 2 after saying what it could not read and the usage.
   */
  parse(argv: readonly string[], io: Pick<CliIo, 'out' | 'err'>): CommandArgs<O> | number;
  /** Says what is wrong with the command line, then the usage; the exit code of a usage error. */
  usageError(io: Pick<CliIo, 'err'>, message: string): number;
  /** Says what is wrong with a value the command was given, without the usage (the line itself was read); the exit code of a usage error. */
  refuse(io: Pick<CliIo, 'err'>, message: string): number;
}

export function defineCommand<const O extends ParseArgsOptionsConfig>(definition: CommandDefinition<O>): Command<O> {
  const usageError = (io: Pick<CliIo, 'err'>, message: string): number => {
    io.err(`${definition.name}: ${message}\n\n${definition.usage}`);
    return USAGE_EXIT;
  };
  return {
    ...definition,
    usageError,
    refuse(io, message) {
      io.err(`${definition.name}: ${message}`);
      return USAGE_EXIT;
    },
    parse(argv, io) {
      let parsed: CommandArgs<O>;
      try {
        parsed = parseArgs({ args: [...argv], allowPositionals: definition.positionals ?? true, options: { ...definition.options, ...HELP } as WithHelp<O> });
      } catch (error) {
        return usageError(io, (error as Error).message);
      }
      if ((parsed.values as { help?: boolean }).help === true) {
        io.out(definition.help ?? (definition.usage.startsWith('Usage:') ? definition.usage : `Usage:\n${definition.usage}`));
        return 0;
      }
      return parsed;
    },
  };
}
