import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../exit-codes.js';
import type { CommandIO } from './io.js';
import { guardPipes } from './broken-pipe.js';

function epipe(): NodeJS.ErrnoException {
  return Object.assign(new Error('write EPIPE'), { code: 'EPIPE', errno: -32, syscall: 'write' });
}

function fakeIO(): { io: CommandIO; stderrText: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let err = '';
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  return { io: { stdout, stderr, env: {}, signal: new AbortController().signal }, stderrText: () => err };
}

describe('guardPipes', () => {
  it('turns EPIPE on stdout into one abort, silences stderr and makes the exit 141', async () => {
    const { io, stderrText } = fakeIO();
    const reasons: Error[] = [];
    const guard = guardPipes(io, (r) => reasons.push(r));
    guard.io.stderr.write('before\n');
    io.stdout.emit('error', epipe());
    io.stdout.emit('error', epipe());
    expect(reasons.map((r) => r.message)).toEqual(['output closed (EPIPE)']);
    expect(guard.broken).toBe(true);
    guard.io.stderr.write('after\n');
    expect(stderrText()).toBe('before\n');
    expect(await guard.finish(ExitCode.Interrupted)).toBe(ExitCode.BrokenPipe);
    // A later write error on the broken stream must not become an unhandled 'error' event.
    expect(() => io.stdout.emit('error', epipe())).not.toThrow();
  });

  it('treats a closed stderr the same way', async () => {
    const { io } = fakeIO();
    let aborted = 0;
    const guard = guardPipes(io, () => aborted++);
    io.stderr.emit('error', epipe());
    expect(aborted).toBe(1);
    expect(await guard.finish(ExitCode.Ok)).toBe(141);
  });

  it('keeps the exit code when nothing broke', async () => {
    const { io, stderrText } = fakeIO();
    const guard = guardPipes(io, () => undefined);
    guard.io.stderr.write('note\n');
    expect(await guard.finish(ExitCode.CheckFailed)).toBe(ExitCode.CheckFailed);
    expect(stderrText()).toBe('note\n');
  });

  it('catches a real EPIPE: writes to a pipe whose reader has closed it', async () => {
    // The reader closes its end of the pipe, says so, and stays alive until we are done.
    const reader = spawn(process.execPath, ['-e', "require('fs').closeSync(0); process.stdout.write('closed'); setInterval(() => {}, 1000)"], {
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    try {
      await once(reader.stdout, 'data');
      const { io } = fakeIO();
      let reason: Error | undefined;
      const guard = guardPipes({ ...io, stdout: reader.stdin }, (r) => (reason = r));
      // Returned right after the write that fails: the failure is reported a tick later.
      reader.stdin.write('x'.repeat(1 << 16));
      expect(await guard.finish(ExitCode.Ok)).toBe(ExitCode.BrokenPipe);
      expect(reason?.message).toBe('output closed (EPIPE)');
    } finally {
      reader.kill();
    }
  });
});
