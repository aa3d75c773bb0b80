import type { Writable } from 'node:stream';
import { UsageError } from '../errors.js';
import { escapeTerminal } from '../util/escape.js';

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

/** All of stdin, for `-f -`: read once, up front; `what` names what it holds, for the line when there is none. */
export async function readStdin(io: Pick<CommandIO, 'stdin'>, what = 'objects'): Promise<string> {
  if (!io.stdin) throw new UsageError(`-f -: there is no stdin to read ${what} from`);
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** One line on stderr, escaped: what it says may come from the cluster. */
export function say(io: Pick<CommandIO, 'stderr'>, line: string): void {
  io.stderr.write(`${escapeTerminal(line)}\n`);
}

/** For an informer's onEvent: its warnings and errors (a lost or stalled watch), one line each; the rest is progress, not said. */
export function sayInformerWarnings(io: Pick<CommandIO, 'stderr'>): (e: { level: string; message: string }) => void {
  return (e) => {
    if (e.level === 'warning' || e.level === 'error') say(io, `${e.level}: ${e.message}`);
  };
}
