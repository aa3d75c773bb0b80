/**
 * Output whose reader went away (`… | head -1`, a pager closed early). A write to such a pipe fails
 * with EPIPE, which Node reports as an 'error' event on the stream: unhandled, a stack trace. A Go
 * program such as kubectl is killed by SIGPIPE there without a word, which a shell reports as
 * status 141 (128 + SIGPIPE) and `set -o pipefail` scripts see as a failure. We end the same way,
 * only more gently: the command is aborted as on Ctrl+C (so watches and informers stop and
 * clean up), nothing more is written to stderr, and the exit status is 141.
 */
import { Writable } from 'node:stream';
import { ExitCode } from '../exit-codes.js';
import type { CommandIO } from './io.js';

export interface PipeGuard {
  /** The io to run the command with: the same streams, but stderr falls silent once output broke. */
  readonly io: CommandIO;
  /** True once stdout or stderr refused a write. */
  readonly broken: boolean;
  /**
   * The exit code to return once what was written has reached the pipes (a refused write is
   * reported a tick after it failed, often after the command returned): the command's own, or
   * BrokenPipe when output broke.
   */
  finish(code: ExitCode): Promise<ExitCode>;
}

/**
 * Watches io's stdout and stderr for a write error, for as long as they live (a write refused after
 * the command returned must stay quiet too). The first error calls `abort` once; later writes to
 * the broken stream fail again and are swallowed. A write error other than EPIPE (a terminal
 * gone: EIO) ends the command the same way.
 */
export function guardPipes(io: CommandIO, abort: (reason: Error) => void): PipeGuard {
  let broken = false;
  const onError = (err: NodeJS.ErrnoException): void => {
    if (broken) return;
    broken = true;
    abort(new Error(`output closed (${err.code ?? err.message})`));
  };
  io.stdout.on('error', onError);
  if (io.stderr !== io.stdout) io.stderr.on('error', onError);
  const inner = io.stderr;
  // Synchronous callback: nothing is buffered here, so ordering with stdout and exit stays as before.
  const stderr = new Writable({
    write(chunk: Buffer | string, encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
      if (!broken) inner.write(chunk, encoding);
      callback();
    },
  });
  return {
    io: { ...io, stderr },
    get broken() {
      return broken;
    },
    finish: async (code) => {
      await Promise.all([flushed(io.stdout), flushed(io.stderr)]);
      return broken ? ExitCode.BrokenPipe : code;
    },
  };
}

/** Resolves when the writes before it are done (or failed): an empty write completes after them. */
function flushed(stream: CommandIO['stdout'] | CommandIO['stderr']): Promise<void> {
  if (stream.destroyed || stream.writableEnded) return Promise.resolve();
  return new Promise((resolve) => stream.write('', () => resolve()));
}
