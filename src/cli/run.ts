/**
 * Runs a commander program in-process and returns an exit code: usage errors are exit 2 with
 * commander's message, CliErrors their own code, API errors mapped by toCliError, anything else 1.
 * Nothing here exits the process; bin/ does.
 */
import { CommanderError, type Command } from 'commander';
import { CliError, exitCodeOf, formatError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { toCliError } from '../kube/index.js';
import type { CommandIO } from './io.js';
import { normaliseArgv, verbosity } from './connection-flags.js';

/**
 * `stopIsNormal`: the command ran until told to stop (a service's SIGTERM) and stopped cleanly, so
 * the code stands even though the signal aborted.
 */
export type SetExitCode = (code: ExitCode, options?: { stopIsNormal?: boolean }) => void;

export type ProgramFactory = (io: CommandIO, setExitCode: SetExitCode) => Command;

export async function runProgram(factory: ProgramFactory, argv: string[], io: CommandIO): Promise<ExitCode> {
  let exitCode: ExitCode = ExitCode.Ok;
  let stopIsNormal = false;
  const program = factory(io, (code, options) => {
    exitCode = code;
    stopIsNormal = options?.stopIsNormal === true;
  });
  configure(program, io);
  const verbose = verbosity(argv) > 0;
  try {
    await program.parseAsync(normaliseArgv(argv), { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return ExitCode.Ok;
      return ExitCode.Usage;
    }
    if (io.signal.aborted && !(err instanceof CliError)) return ExitCode.Interrupted;
    const mapped = toCliError(err);
    io.stderr.write(`${formatError(mapped, verbose)}\n`);
    return exitCodeOf(mapped);
  }
  if (io.signal.aborted && exitCode === ExitCode.Ok && !stopIsNormal) return ExitCode.Interrupted;
  return exitCode;
}

function configure(cmd: Command, io: CommandIO): void {
  cmd.exitOverride();
  cmd.configureOutput({
    writeOut: (s) => io.stdout.write(s),
    writeErr: (s) => io.stderr.write(s),
    outputError: (s, write) => write(s.endsWith('\n') ? s : `${s}\n`),
  });
  cmd.showSuggestionAfterError(true);
  for (const sub of cmd.commands) configure(sub, io);
}
