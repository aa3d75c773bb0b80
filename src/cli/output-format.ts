/**
 * The -o flag of every command, one rule: a command's formats are the keys of its sinks (one per
 * format, chosen once), commander offers exactly those, and when -o is left out the TUI is chosen
 * on a terminal (if the command has one) and the command's text format otherwise. -o tui asked for
 * where stdout is not a terminal, or a format the command does not have (the root's -o, written
 * before a subcommand), is refused before any request, with the same line everywhere.
 */
import { Option } from 'commander';
import { UsageError } from '../errors.js';
import { interactive, type CommandIO } from './io.js';

/** `-o, --output <format>` offering the keys of a command's sinks, in their order. */
export function outputOption(sinks: object, description: string): Option {
  return new Option('-o, --output <format>', description).choices(Object.keys(sinks));
}

/**
 * The format a command runs with: the one asked for, else tui on a terminal (when the command has
 * a TUI), else `text`; a usage error for the TUI without a terminal.
 */
export function chooseOutput<F extends string>(sinks: Readonly<Record<F, unknown>>, asked: F | undefined, text: F, io: Pick<CommandIO, 'stdout' | 'env'>): F {
  const formats = Object.keys(sinks);
  // A value the command's own flag would refuse may come from the root's -o, written before the subcommand.
  if (asked !== undefined && !formats.includes(asked)) throw new UsageError(`-o ${asked}: choose ${formats.slice(0, -1).join(', ')} or ${formats.at(-1)}`);
  const tui = formats.includes('tui') ? ('tui' as F) : undefined;
  const chosen = asked ?? (tui !== undefined && interactive(io) ? tui : text);
  if (chosen === tui && !io.stdout.isTTY)
    throw new UsageError('-o tui needs a terminal: stdout is not one', { hint: 'use -o table, -o json or -o ndjson when piping or redirecting' });
  return chosen;
}
