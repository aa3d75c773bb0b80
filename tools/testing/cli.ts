/**
 * Runs a plugin's program in-process, as bin/ would, with its output captured: the one harness
 * for command tests (unit and e2e).
 */
import { PassThrough } from 'node:stream';
import type { CommandIO } from '../../src/cli/io.js';
import { runProgram, type ProgramFactory } from '../../src/cli/run.js';
import type { ExitCode } from '../../src/exit-codes.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface LiveCli {
  /** Output so far, readable while the command runs. */
  stdout(): string;
  stderr(): string;
  done: Promise<CliResult>;
}

/** Starts the program; `env` is the whole environment it sees (CI=true keeps it off the TUI). */
export function startCli(
  factory: ProgramFactory,
  argv: string[],
  env: NodeJS.ProcessEnv = { CI: 'true' },
  signal: AbortSignal = new AbortController().signal,
): LiveCli {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  const io: CommandIO = { stdout, stderr, env, signal };
  // Lines corked in the last turn (ndjsonWriter) go out on the next tick, as a process's would before it exits.
  const done = runProgram(factory, argv, io)
    .then((code) => new Promise<ExitCode>((resolve) => setImmediate(() => resolve(code))))
    .then((code) => ({ code, stdout: out, stderr: err }));
  return { stdout: () => out, stderr: () => err, done };
}

export function runCli(factory: ProgramFactory, argv: string[], env?: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<CliResult> {
  return startCli(factory, argv, env, signal).done;
}
