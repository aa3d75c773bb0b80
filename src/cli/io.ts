import type { Writable } from 'node:stream';

/** What a command may touch of the process: passed in, so tests run commands in-process. */
export interface CommandIO {
  stdout: Writable & { isTTY?: boolean; columns?: number };
  stderr: Writable;
  stdin?: NodeJS.ReadStream | undefined;
  env: NodeJS.ProcessEnv;
  /** Aborts on SIGINT / SIGTERM. */
  signal: AbortSignal;
}

export function processIO(signal: AbortSignal): CommandIO {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, signal };
}

/** The ink TUI is for a person at a terminal; CI and pipes get plain output. */
export function interactive(io: Pick<CommandIO, 'stdout' | 'env'>): boolean {
  return Boolean(io.stdout.isTTY) && !io.env.CI && io.env.TERM !== 'dumb';
}

export function colorEnabled(io: CommandIO): boolean {
  return !io.env.NO_COLOR && Boolean(io.stdout.isTTY);
}
