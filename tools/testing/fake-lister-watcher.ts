import type { Clock, Timer } from '../../src/clock.js';
import { ApiError } from '../../src/kube/api-error.js';
import type { KubeObject, ListDecodeOptions, ListerWatcher, ListOptions, ListResult, Status, Watch, WatchEvent, WatchOptions } from '../../src/kube/types.js';

/**
 * A ListerWatcher over an in-memory set of objects that behaves like an API server with a watch
 * cache, for tests:
 * - add/modify/delete bump a global resourceVersion and send ADDED/MODIFIED/DELETED to open watches;
 *   bookmark() sends a BOOKMARK to watches that allowed them.
 * - Lists paginate with `limit` and continue tokens over a consistent snapshot. With the watch cache
 *   on (default), an RV="0" list ignores `limit`, as the real cache does; `watchCache: false`
 *   paginates every list that has a limit.
 * - Watches from ""/"0" start with synthetic ADDED events; from a specific RV they replay the
 *   history after it; from an RV older than compact() an ERROR 410 Expired; from a future RV an
 *   ERROR "too large resource version". sendInitialEvents streams the state then the
 *   `k8s.io/initial-events-end` bookmark (or is rejected/ignored, see watchListSupport).
 * - Scripted failures: failList/failWatch/failContinue queue errors for the next calls; closeWatches
 *   ends open watches normally, dropWatches makes them throw a connection error, sendError sends an
 *   ERROR event. fakeErrors builds every error the reflector cares about.
 * - Dead connections: freezeWatches makes the open watches half-open (nothing more is delivered,
 *   not even the server's close at their timeout; only our stop() ends them); hangWatchOpens makes
 *   the next watch requests go unanswered until their signal aborts. FakeWatch.trickle() tells the
 *   reader that bytes arrived without a whole event (Watch.onProgress).
 * - Every list and watch call's options are recorded (listCalls, watchCalls) and objects handed
 *   out are copies, so transforms cannot change the fake's state.
 */
export interface FakeListerWatcherOptions {
  description?: string;
  /** Initial objects (given resourceVersions in order). */
  objects?: KubeObject[];
  /** The resourceVersion before the first object. Default 100. */
  startResourceVersion?: number;
  /** Stamped on objects and bookmarks that lack them. */
  apiVersion?: string;
  kind?: string;
  /** With the watch cache on (default), RV="0" lists ignore limit. */
  watchCache?: boolean;
  /** How a watch with sendInitialEvents is answered. Default 'supported'. */
  watchListSupport?: 'supported' | 'rejected' | 'ignored';
  /** If set, watches end normally after their timeoutSeconds on this clock. */
  clock?: Clock;
}

export type FakeFailure = Error | ((options: ListOptions | WatchOptions) => Error);

function statusError(status: Status, networkCode?: string): ApiError {
  return new ApiError(status.message ?? status.reason ?? 'error', {
    code: status.code ?? 0,
    ...(status.reason ? { reason: status.reason } : {}),
    status,
    ...(networkCode ? { networkCode } : {}),
  });
}

function status(code: number, reason: string, message: string, details?: Status['details']): Status {
  return { apiVersion: 'v1', kind: 'Status', status: 'Failure', code, reason, message, ...(details ? { details } : {}), metadata: {} };
}

/** The errors an API server (or the network) answers that the reflector distinguishes. */
export const fakeErrors = {
  expired(message = 'too old resource version: 1 (100)'): ApiError {
    return statusError(status(410, 'Expired', message));
  },
  gone(message = 'too old resource version'): ApiError {
    return statusError(status(410, 'Gone', message));
  },
  tooManyRequests(message = 'Too many requests, please try again later.'): ApiError {
    return statusError(status(429, 'TooManyRequests', message, { retryAfterSeconds: 1 }));
  },
  internalError(message = 'Internal error occurred: etcdserver: request timed out'): ApiError {
    return statusError(status(500, 'InternalError', message));
  },
  badRequest(message = 'bad request'): ApiError {
    return statusError(status(400, 'BadRequest', message));
  },
  forbidden(message = 'forbidden'): ApiError {
    return statusError(status(403, 'Forbidden', message));
  },
  connectionRefused(): ApiError {
    return new ApiError('connect ECONNREFUSED 127.0.0.1:6443', { code: 0, networkCode: 'ECONNREFUSED' });
  },
  connectionReset(): ApiError {
    return new ApiError('watch was cut off: read ECONNRESET', { code: 0, networkCode: 'ECONNRESET' });
  },
  /**
   * "Too large resource version" in its three historical forms (client-go reflector_test):
   * 'cause' (1.18.6+: cause ResourceVersionTooLarge), 'cause-message' (1.17.0–1.18.5: a Timeout
   * whose cause message says so), 'message' (before 1.17: only the Timeout message).
   */
  tooLargeResourceVersion(format: 'cause' | 'cause-message' | 'message' = 'cause'): ApiError {
    switch (format) {
      case 'cause':
        return statusError(
          status(504, 'Timeout', 'Timeout: Too large resource version: 200, current: 100', {
            causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
            retryAfterSeconds: 1,
          }),
        );
      case 'cause-message':
        return statusError(
          status(504, 'Timeout', 'Timeout: too large resource version', {
            causes: [{ message: 'Too large resource version' }],
            retryAfterSeconds: 1,
          }),
        );
      case 'message':
        return statusError(status(504, 'Timeout', 'Timeout: Too large resource version', { retryAfterSeconds: 1 }));
    }
  },
};

/** The Status an ApiError came from (for ERROR watch events). */
export function statusOf(err: ApiError): Status {
  return err.status ?? status(err.code, err.reason, err.message);
}

function keyOf(obj: KubeObject): string {
  const m = obj.metadata;
  return m.namespace ? `${m.namespace}/${m.name ?? ''}` : (m.name ?? '');
}

function clone<T>(v: T): T {
  return structuredClone(v);
}

/** One open watch of the fake: an event queue read through an async iterator. */
export class FakeWatch implements Watch {
  private readonly queue: WatchEvent[] = [];
  private head = 0;
  private ended = false;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;
  private timer: Timer | undefined;
  private readonly progressListeners: (() => void)[] = [];
  stopped = false;
  /** Half-open: nothing more reaches the reader, and the server's close is lost too. */
  frozen = false;
  /** Events handed to the reader. */
  delivered = 0;

  constructor(
    readonly options: WatchOptions,
    private readonly onClose: (w: FakeWatch) => void,
  ) {}

  get isOpen(): boolean {
    return !this.ended;
  }

  onProgress(listener: () => void): void {
    this.progressListeners.push(listener);
  }

  /** Bytes of an event arrive, not yet the whole event. */
  trickle(): void {
    if (this.ended || this.frozen) return;
    for (const l of this.progressListeners) l();
  }

  /** The connection goes half-open: the stream stays open and delivers nothing more. */
  freeze(): void {
    this.frozen = true;
  }

  setTimer(t: Timer): void {
    this.timer = t;
  }

  push(event: WatchEvent): void {
    if (this.ended) return;
    this.queue.push(event);
    this.notify();
  }

  /** The server closes the stream normally (lost when the connection is frozen). */
  end(): void {
    if (this.ended || this.frozen) return;
    this.close();
  }

  private close(): void {
    if (this.ended) return;
    this.ended = true;
    this.timer?.stop();
    this.onClose(this);
    this.notify();
  }

  /** The connection breaks: the reader's next() throws once the queued events are read. */
  fail(err: Error): void {
    if (this.ended || this.frozen) return;
    this.failure = err;
    this.end();
  }

  stop(): void {
    this.stopped = true;
    this.queue.length = this.head; // drop what was not read
    this.close();
  }

  private notify(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
    return {
      next: async (): Promise<IteratorResult<WatchEvent>> => {
        for (;;) {
          if (this.head < this.queue.length && !this.frozen) {
            const value = this.queue[this.head] as WatchEvent;
            this.head++;
            this.delivered++;
            return { value, done: false };
          }
          if (this.ended && (!this.frozen || this.stopped)) {
            if (this.failure && !this.stopped) {
              const f = this.failure;
              this.failure = undefined;
              throw f;
            }
            return { value: undefined, done: true };
          }
          await new Promise<void>((resolve) => (this.wake = resolve));
        }
      },
      return: async (): Promise<IteratorResult<WatchEvent>> => {
        this.stop();
        return { value: undefined, done: true };
      },
    };
  }
}

interface PagedSnapshot {
  rv: number;
  items: KubeObject[];
  offset: number;
}

export class FakeListerWatcher implements ListerWatcher {
  readonly description: string;
  /** Options of every list call, in order (copies). */
  readonly listCalls: ListOptions[] = [];
  /** Options of every watch call, in order (copies). */
  readonly watchCalls: WatchOptions[] = [];
  /** Every watch opened, in order. */
  readonly watches: FakeWatch[] = [];
  private readonly objects = new Map<string, KubeObject>();
  private rv: number;
  private compactedRV = 0;
  private readonly history: { rv: number; event: WatchEvent }[] = [];
  private readonly open = new Set<FakeWatch>();
  private readonly snapshots = new Map<string, PagedSnapshot>();
  private tokenSeq = 0;
  private listFailures: FakeFailure[] = [];
  private watchFailures: FakeFailure[] = [];
  private hangingOpens = 0;
  private continueFailures: FakeFailure[] = [];
  private readonly apiVersion: string | undefined;
  private readonly kind: string | undefined;
  private readonly watchCache: boolean;
  watchListSupport: 'supported' | 'rejected' | 'ignored';
  private readonly clock: Clock | undefined;
  private uidSeq = 0;

  constructor(options: FakeListerWatcherOptions = {}) {
    this.description = options.description ?? 'fake';
    this.rv = options.startResourceVersion ?? 100;
    this.apiVersion = options.apiVersion;
    this.kind = options.kind;
    this.watchCache = options.watchCache ?? true;
    this.watchListSupport = options.watchListSupport ?? 'supported';
    this.clock = options.clock;
    for (const o of options.objects ?? []) this.store(o);
  }

  /** The current resourceVersion. */
  get resourceVersion(): string {
    return String(this.rv);
  }

  /** Watches not yet closed. */
  openWatches(): FakeWatch[] {
    return [...this.open];
  }

  lastWatch(): FakeWatch | undefined {
    return this.watches[this.watches.length - 1];
  }

  get(key: string): KubeObject | undefined {
    const o = this.objects.get(key);
    return o ? clone(o) : undefined;
  }

  keys(): string[] {
    return [...this.objects.keys()].sort();
  }

  private stamp(obj: KubeObject): KubeObject {
    const o = clone(obj);
    o.metadata = { ...o.metadata };
    if (this.apiVersion && o.apiVersion === undefined) o.apiVersion = this.apiVersion;
    if (this.kind && o.kind === undefined) o.kind = this.kind;
    o.metadata.resourceVersion = String(++this.rv);
    return o;
  }

  private store(obj: KubeObject): KubeObject {
    const o = this.stamp(obj);
    if (!o.metadata.uid) o.metadata.uid = `uid-${++this.uidSeq}`;
    this.objects.set(keyOf(o), o);
    return o;
  }

  private broadcast(event: WatchEvent): void {
    this.history.push({ rv: this.rv, event });
    for (const w of this.open) w.push(clone(event));
  }

  /** Creates an object (ADDED). Returns the stored copy with its resourceVersion. */
  add(obj: KubeObject): KubeObject {
    const key = keyOf(obj);
    if (this.objects.has(key)) throw new Error(`fake: ${key} already exists`);
    const o = this.store(obj);
    this.broadcast({ type: 'ADDED', object: clone(o) });
    return clone(o);
  }

  /** Replaces an object (MODIFIED). */
  modify(obj: KubeObject): KubeObject {
    const key = keyOf(obj);
    const old = this.objects.get(key);
    if (!old) throw new Error(`fake: ${key} does not exist`);
    const o = this.stamp(obj);
    o.metadata.uid = old.metadata.uid;
    this.objects.set(key, o);
    this.broadcast({ type: 'MODIFIED', object: clone(o) });
    return clone(o);
  }

  /** Deletes by key (`ns/name` or `name`) or object (DELETED, carrying the last state at a new RV). */
  delete(keyOrObj: string | KubeObject): KubeObject {
    const key = typeof keyOrObj === 'string' ? keyOrObj : keyOf(keyOrObj);
    const old = this.objects.get(key);
    if (!old) throw new Error(`fake: ${key} does not exist`);
    this.objects.delete(key);
    const o = clone(old);
    o.metadata.resourceVersion = String(++this.rv);
    this.broadcast({ type: 'DELETED', object: clone(o) });
    return clone(o);
  }

  /** Changes state without telling open watches (as if the events were missed). */
  silently(fn: (fake: FakeListerWatcher) => void): void {
    const saved = [...this.open];
    this.open.clear();
    try {
      fn(this);
    } finally {
      for (const w of saved) if (w.isOpen) this.open.add(w);
    }
  }

  /** Sends a BOOKMARK at the current RV to watches that allowed bookmarks. */
  bookmark(annotations?: Record<string, string>): void {
    for (const w of this.open) {
      if (w.options.allowWatchBookmarks) w.push(this.bookmarkEvent(annotations));
    }
  }

  private bookmarkEvent(annotations?: Record<string, string>): WatchEvent {
    const object: KubeObject = { metadata: { resourceVersion: this.resourceVersion, ...(annotations ? { annotations } : {}) } };
    if (this.apiVersion) object.apiVersion = this.apiVersion;
    if (this.kind) object.kind = this.kind;
    return { type: 'BOOKMARK', object };
  }

  /** Forgets history up to now: watches and continue tokens from older RVs get 410 Expired. */
  compact(): void {
    this.compactedRV = this.rv;
    this.history.length = 0;
  }

  /** The next list calls fail with these errors, in order (continuation pages included). */
  failList(...failures: FakeFailure[]): void {
    this.listFailures.push(...failures);
  }

  /** The next watch calls fail to open with these errors, in order. */
  failWatch(...failures: FakeFailure[]): void {
    this.watchFailures.push(...failures);
  }

  /** The next continuation-page requests fail with these errors, in order. */
  failContinue(...failures: FakeFailure[]): void {
    this.continueFailures.push(...failures);
  }

  /** The next `n` watch requests get no answer: they wait until their signal aborts. */
  hangWatchOpens(n = 1): void {
    this.hangingOpens += n;
  }

  /** Every open watch goes half-open (FakeWatch.freeze); new watches are not affected. */
  freezeWatches(): void {
    for (const w of this.open) w.freeze();
  }

  /** Ends every open watch normally (the server closed the stream). */
  closeWatches(): void {
    for (const w of [...this.open]) w.end();
  }

  /** Breaks every open watch: readers get `err` (default: connection reset). */
  dropWatches(err: Error = fakeErrors.connectionReset()): void {
    for (const w of [...this.open]) w.fail(err);
  }

  /** Sends an ERROR event (with the error's Status) to every open watch. */
  sendError(err: ApiError): void {
    for (const w of this.open) w.push({ type: 'ERROR', object: statusOf(err) as unknown as KubeObject });
  }

  private sortedItems(): KubeObject[] {
    return [...this.objects.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, o]) => clone(o));
  }

  /** The decode options of every list call, in order. */
  readonly listDecodes: (ListDecodeOptions | undefined)[] = [];

  /** As the real one, items pass through decode.transform before the list is returned. */
  async list(options: ListOptions, signal?: AbortSignal, decode?: ListDecodeOptions): Promise<ListResult> {
    this.listDecodes.push(decode);
    const result = await this.listItems(options, signal);
    const transform = decode?.transform;
    if (transform) result.items = result.items.map((o) => transform(o));
    return result;
  }

  private async listItems(options: ListOptions, signal?: AbortSignal): Promise<ListResult> {
    this.listCalls.push({ ...options });
    await Promise.resolve();
    signal?.throwIfAborted();
    if (options.continue) {
      const cf = this.continueFailures.shift();
      if (cf) throw typeof cf === 'function' ? cf(options) : cf;
    }
    const f = this.listFailures.shift();
    if (f) throw typeof f === 'function' ? f(options) : f;

    if (options.continue) {
      const snap = this.snapshots.get(options.continue);
      if (!snap) throw fakeErrors.badRequest(`unknown continue token ${options.continue}`);
      this.snapshots.delete(options.continue);
      if (snap.rv <= this.compactedRV) {
        throw fakeErrors.expired('The provided continue parameter is too old to display a consistent list result.');
      }
      return this.page(snap, options.limit ?? 0);
    }
    const rv = options.resourceVersion ?? '';
    const limit = options.limit ?? 0;
    const items = this.sortedItems();
    const snap: PagedSnapshot = { rv: this.rv, items, offset: 0 };
    if (limit > 0 && !(this.watchCache && rv === '0')) return this.page(snap, limit);
    return { items, resourceVersion: String(this.rv) };
  }

  private page(snap: PagedSnapshot, limit: number): ListResult {
    const end = limit > 0 ? Math.min(snap.items.length, snap.offset + limit) : snap.items.length;
    const items = snap.items.slice(snap.offset, end);
    const result: ListResult = { items, resourceVersion: String(snap.rv) };
    if (end < snap.items.length) {
      const token = `continue-${++this.tokenSeq}`;
      this.snapshots.set(token, { rv: snap.rv, items: snap.items, offset: end });
      result.continue = token;
      result.remainingItemCount = snap.items.length - end;
    }
    return result;
  }

  async watch(options: WatchOptions, signal?: AbortSignal): Promise<Watch> {
    this.watchCalls.push({ ...options });
    await Promise.resolve();
    signal?.throwIfAborted();
    const f = this.watchFailures.shift();
    if (f) throw typeof f === 'function' ? f(options) : f;
    if (this.hangingOpens > 0) {
      this.hangingOpens--;
      await new Promise<never>((_, reject) => {
        if (!signal) return;
        signal.addEventListener('abort', () => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted')), { once: true });
      });
    }
    if (options.sendInitialEvents && this.watchListSupport === 'rejected') {
      throw fakeErrors.badRequest('resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
    }

    const w = new FakeWatch({ ...options }, (closed) => this.open.delete(closed));
    this.watches.push(w);
    this.open.add(w);
    if (signal) signal.addEventListener('abort', () => w.stop(), { once: true });
    if (this.clock && options.timeoutSeconds) {
      w.setTimer(this.clock.setTimer(options.timeoutSeconds * 1000, () => w.end()));
    }

    const rv = options.resourceVersion ?? '';
    if (options.sendInitialEvents) {
      for (const o of this.sortedItems()) w.push({ type: 'ADDED', object: o });
      if (this.watchListSupport === 'supported') {
        w.push(this.bookmarkEvent({ 'k8s.io/initial-events-end': 'true' }));
      }
      return w;
    }
    if (rv === '' || rv === '0') {
      for (const o of this.sortedItems()) w.push({ type: 'ADDED', object: o });
      return w;
    }
    const n = Number(rv);
    if (!Number.isFinite(n) || n < this.compactedRV) {
      w.push({ type: 'ERROR', object: statusOf(fakeErrors.expired(`too old resource version: ${rv} (${this.compactedRV})`)) as unknown as KubeObject });
      return w;
    }
    if (n > this.rv) {
      w.push({ type: 'ERROR', object: statusOf(fakeErrors.tooLargeResourceVersion('cause')) as unknown as KubeObject });
      return w;
    }
    for (const h of this.history) if (h.rv > n) w.push(clone(h.event));
    return w;
  }
}
