/**
 * Turns a watch response into an async iterable of events, with back-pressure: the socket is
 * paused while more than `highWater` events wait to be consumed. The response's bytes go to a
 * decoder for its encoding: JSON (one object per line; each line is found in the raw bytes and
 * decoded on its own, so a chunk is never copied into a joined string first, and only a line cut
 * by a chunk boundary is joined) or protobuf (length-prefixed frames, src/kube/protobuf).
 * An event larger than MAX_WATCH_EVENT_BYTES is refused as soon as that many bytes of it have
 * arrived (the watch fails and its reader re-lists), so one hostile event cannot grow the buffer
 * without end. onProgress listeners hear of every chunk as it arrives (the reader's stall timer);
 * stop() destroys the response, and with it the socket, which is never reused.
 */
import { ConnectionStalledError, type ResponseStream, watchStalled } from './http.js';
import { ApiError } from './api-error.js';
import type { Watch, WatchEvent } from './types.js';

const NEWLINE = 0x0a;

/**
 * The largest watch event read. The API server stores objects of at most about 1.5 MiB (etcd's
 * request limit), so a real event is far below it.
 */
export const MAX_WATCH_EVENT_BYTES = 10 * 1024 * 1024;

/** An event over the size limit; `size` is its length when known, else the bytes read of it. */
export class WatchEventTooLarge extends Error {
  constructor(
    readonly size: number,
    readonly known: boolean,
    readonly limit: number,
  ) {
    super(`an event ${known ? 'of' : 'of more than'} ${mib(size)}, over the ${mib(limit)} limit; refused`);
  }
}

function mib(bytes: number): string {
  const m = bytes / (1024 * 1024);
  return `${Number.isInteger(m) ? m : m.toFixed(1)} MiB`;
}

/** Decodes a watch stream's bytes into events. */
export interface WatchDecoder {
  /** Decodes every whole event in the bytes received so far; throws on bytes that are not events. */
  write(chunk: Buffer, push: (event: WatchEvent) => void): void;
  /** The stream ended: decodes what is left, or throws if it is a cut-off event. */
  end(push: (event: WatchEvent) => void): void;
}

/** JSON watch streams: one event per line. */
export class JsonLinesDecoder implements WatchDecoder {
  /** The start of a line cut by the end of a chunk. */
  private partial: Buffer[] = [];
  private partialBytes = 0;

  constructor(private readonly maxEventBytes = MAX_WATCH_EVENT_BYTES) {}

  write(chunk: Buffer, push: (event: WatchEvent) => void): void {
    let start = 0;
    let nl = chunk.indexOf(NEWLINE);
    if (this.partial.length > 0) {
      if (nl === -1) {
        this.keep(chunk);
        return;
      }
      this.keep(chunk.subarray(0, nl));
      const line = Buffer.concat(this.partial).toString('utf8');
      this.partial = [];
      this.partialBytes = 0;
      if (line.length > 0) push(parseLine(line));
      start = nl + 1;
      nl = chunk.indexOf(NEWLINE, start);
    }
    while (nl !== -1) {
      if (nl - start > this.maxEventBytes) throw new WatchEventTooLarge(nl - start, true, this.maxEventBytes);
      if (nl > start) push(parseLine(chunk.toString('utf8', start, nl)));
      start = nl + 1;
      nl = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) this.keep(chunk.subarray(start));
  }

  /** Holds the start of a line, refusing it once it is longer than the limit. */
  private keep(bytes: Buffer): void {
    this.partialBytes += bytes.length;
    if (this.partialBytes > this.maxEventBytes) {
      const size = this.partialBytes;
      this.partial = [];
      this.partialBytes = 0;
      throw new WatchEventTooLarge(size, false, this.maxEventBytes);
    }
    this.partial.push(bytes);
  }

  end(push: (event: WatchEvent) => void): void {
    if (this.partial.length === 0) return;
    const rest = Buffer.concat(this.partial).toString('utf8');
    this.partial = [];
    this.partialBytes = 0;
    if (rest.trim().length > 0) push(parseLine(rest));
  }
}

class NotAnEvent extends Error {}

function parseLine(line: string): WatchEvent {
  try {
    return JSON.parse(line) as WatchEvent;
  } catch {
    throw new NotAnEvent(`a line that is not JSON: ${line.slice(0, 80)}`);
  }
}

export class WatchStream implements Watch {
  private readonly buffered: WatchEvent[] = [];
  private head = 0;
  private ended = false;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;
  private stopped = false;
  private progress: (() => void)[] = [];

  constructor(
    private readonly res: ResponseStream,
    private readonly describe: string,
    private readonly decoder: WatchDecoder = new JsonLinesDecoder(),
    private readonly highWater = 1000,
  ) {
    res.on('data', (chunk: Buffer) => this.onData(chunk));
    res.on('end', () => this.finish());
    res.on('aborted', () => this.finish(new ApiError(`watch of ${describe} was cut off`, { code: 0, networkCode: 'ECONNRESET' })));
    res.on('error', (err: NodeJS.ErrnoException) => {
      if (this.stopped) return this.finish();
      // Its connection found dead (an HTTP/2 PING unanswered): a stall, as the reader would say it.
      if (err instanceof ConnectionStalledError) return this.finish(watchStalled(err));
      this.finish(new ApiError(`watch of ${describe} broke: ${err.message}`, { code: 0, networkCode: err.code ?? 'ECONNRESET', cause: err }));
    });
    res.on('close', () => this.finish());
  }

  private readonly push = (event: WatchEvent): void => {
    this.buffered.push(event);
  };

  onProgress(listener: () => void): void {
    this.progress.push(listener);
  }

  private onData(chunk: Buffer): void {
    if (this.ended) return;
    for (const l of this.progress) l();
    try {
      this.decoder.write(chunk, this.push);
    } catch (err) {
      this.finish(this.undecodable(err));
      // Nothing more of this response is read: the connection goes with it.
      this.res.destroy();
      return;
    }
    if (this.buffered.length - this.head > this.highWater) this.res.pause();
    this.notify();
  }

  private undecodable(err: unknown): ApiError {
    return new ApiError(
      `watch of ${this.describe} sent ${err instanceof NotAnEvent || err instanceof WatchEventTooLarge ? err.message : `an event that cannot be decoded: ${(err as Error).message}`}`,
      { code: 0, cause: err },
    );
  }

  private finish(err?: Error): void {
    if (this.ended) return;
    if (!err) {
      try {
        this.decoder.end(this.push);
      } catch (e) {
        err = this.undecodable(e);
      }
    }
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
