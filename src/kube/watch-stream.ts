/**
 * Turns a watch response (one JSON object per line) into an async iterable of events, with
 * back-pressure: the socket is paused while more than `highWater` events wait to be consumed.
 * Lines are found in the raw bytes and each is decoded on its own, so a chunk is never copied
 * into a joined string first; only a line cut by a chunk boundary is joined.
 */
import type { IncomingMessage } from 'node:http';
import { ApiError } from './api-error.js';
import type { Watch, WatchEvent } from './types.js';

const NEWLINE = 0x0a;

export class WatchStream implements Watch {
  private readonly buffered: WatchEvent[] = [];
  private head = 0;
  /** The start of a line cut by the end of a chunk. */
  private partial: Buffer[] = [];
  private ended = false;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;
  private stopped = false;

  constructor(
    private readonly res: IncomingMessage,
    private readonly describe: string,
    private readonly highWater = 1000,
  ) {
    res.on('data', (chunk: Buffer) => this.onData(chunk));
    res.on('end', () => this.finish());
    res.on('aborted', () => this.finish(new ApiError(`watch of ${describe} was cut off`, { code: 0, networkCode: 'ECONNRESET' })));
    res.on('error', (err: NodeJS.ErrnoException) => {
      if (this.stopped) return this.finish();
      this.finish(new ApiError(`watch of ${describe} broke: ${err.message}`, { code: 0, networkCode: err.code ?? 'ECONNRESET', cause: err }));
    });
    res.on('close', () => this.finish());
  }

  private onData(chunk: Buffer): void {
    let start = 0;
    let nl = chunk.indexOf(NEWLINE);
    if (this.partial.length > 0) {
      if (nl === -1) {
        this.partial.push(chunk);
        return;
      }
      this.partial.push(chunk.subarray(0, nl));
      const line = Buffer.concat(this.partial).toString('utf8');
      this.partial = [];
      if (line.length > 0) this.pushLine(line);
      start = nl + 1;
      nl = chunk.indexOf(NEWLINE, start);
    }
    while (nl !== -1) {
      if (nl > start) this.pushLine(chunk.toString('utf8', start, nl));
      start = nl + 1;
      nl = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) this.partial.push(chunk.subarray(start));
    if (this.buffered.length - this.head > this.highWater) this.res.pause();
    this.notify();
  }

  private pushLine(line: string): void {
    try {
      this.buffered.push(JSON.parse(line) as WatchEvent);
    } catch (err) {
      this.finish(new ApiError(`watch of ${this.describe} sent a line that is not JSON: ${line.slice(0, 80)}`, { code: 0, cause: err }));
    }
  }

  private finish(err?: Error): void {
    if (this.ended) return;
    if (this.partial.length > 0 && !err) {
      const rest = Buffer.concat(this.partial).toString('utf8');
      if (rest.trim().length > 0) this.pushLine(rest);
    }
    this.partial = [];
    this.ended = true;
    if (err && !this.stopped) this.failure = err;
    this.notify();
  }

  private notify(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.res.destroy();
    this.finish();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
    try {
      for (;;) {
        if (this.head < this.buffered.length) {
          const ev = this.buffered[this.head]!;
          this.buffered[this.head] = undefined as unknown as WatchEvent;
          this.head++;
          if (this.head > 4096 && this.head * 2 > this.buffered.length) {
            this.buffered.splice(0, this.head);
            this.head = 0;
          }
          if (this.res.isPaused() && this.buffered.length - this.head < this.highWater / 2) this.res.resume();
          if (this.stopped) return;
          yield ev;
          continue;
        }
        if (this.ended || this.stopped) {
          if (this.failure && !this.stopped) throw this.failure;
          return;
        }
        await new Promise<void>((resolve) => (this.wake = resolve));
      }
    } finally {
      if (!this.ended) this.stop();
    }
  }
}
