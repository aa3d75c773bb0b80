/**
 * Mirrors client-go tools/cache/reflector.go (with tools/pager and the retry-with-deadline helper):
 * lists a resource, then watches it from the list's resourceVersion, feeding every change into a
 * store (the informer's DeltaFIFO), and recovers from every failure by re-watching or relisting.
 *
 * Behaviour kept from client-go (docs/design/clientgo-semantics.md §1 has the whole picture):
 * - run(): ListAndWatch, then a backoff wait (the timer starts after the call), until aborted.
 *   Backoff 800 ms doubling to 30 s, jitter 1.0, restarted 2 min after the last restart.
 * - list(): RV "" when the last RV is unavailable, "0" the first time, else the last-sync RV;
 *   pages of 500, but unpaginated for a specific RV unless an RV="0" list came back paginated
 *   (sticky); Expired/Gone or "too large RV" sets the unavailable flag and retries at once at "".
 * - watch: RV = last-sync RV, a timeoutSeconds, bookmarks on (the timeout differs, see below).
 *   Connection refused / 429 on open: backoff and re-watch. Other open errors: relist.
 *   ERROR event → ApiError, ends the watch. Normal close: re-watch without relist (a close within
 *   1 s with no events is an error). Expired/Gone: relist at the last RV after backoff. 429: backoff
 *   and re-watch. 500: re-watch while within maxInternalErrorRetryDuration (0 = off).
 *   lastSync RV follows every event, except that a watch started at ""/"0" ignores Added events
 *   until its first other event (synthetic Added events are not in RV order).
 * - resync timer every resyncPeriod while watching, gated by shouldResync; a Resync error ends the
 *   watch (→ relist after backoff).
 * - useWatchList: a streaming list (sendInitialEvents, NotOlderThan) into a temporary store until
 *   the `k8s.io/initial-events-end` bookmark, then Replace and keep the same watch. 429/refused:
 *   backoff and retry; Expired/too large: flag and retry from ""; closed early: retry; other
 *   errors: fall back to list + watch.
 *
 * Deliberate differences:
 * - Times are milliseconds; the clock and the random source are injected.
 * - Watches are short and their silence is judged (docs/design/dead-connections.md): timeoutSeconds
 *   in [min, 1.5·min) with min ≥ 30 s (client-go: [5 min, 10 min)), and a stall timer per watch,
 *   from its request on: a watch that has neither ended nor delivered a byte or an event by
 *   max(its opening + its timeout, its last progress) + watchStallGrace (15 s) is taken as a dead
 *   connection (half-open, or a hung server). Its signal aborts with a ConnectionStalledError,
 *   which destroys the request and its socket and closes the client's idle pooled connections;
 *   the stall is counted (stats.watchStalls), reported once as a warning 'watch-closed' event and
 *   to the handler (action 'rewatch'), and the watch is opened again at once from the last RV (a
 *   streaming list streams again). client-go relies on HTTP/2 pings for this; node:http has none.
 * - EVERY error goes to the watchErrorHandler (with the phase and what happens next) and to the
 *   stats, not only the ones ListAndWatch returns; client-go only logs the others. The default
 *   handler does nothing: errors are visible through stats and the event hook.
 * - A watch whose iterator throws a connection-lost error (reset, EPIPE, premature close, "EOF")
 *   counts as a normal close, as client-go's StreamWatcher treats probable EOFs; other thrown
 *   errors end the watch with that error (→ relist).
 * - Selectors belong to the ListerWatcher; the reflector sends only RV, limit, continue, timeout
 *   and bookmark/streaming options.
 * - `useWatchList` defaults to false (client-go enables WatchListClient by default since 1.35).
 * - list() hands the store's transform to the ListerWatcher, which applies it to each item as it
 *   is decoded, so what the transform drops (managedFields by default) is never held for a whole
 *   list; the DeltaFIFO applies it again (transforms are idempotent). client-go transforms only
 *   in the DeltaFIFO, after the whole list is decoded.
 */
import type { Clock, Timer } from '../clock.js';
import { realClock } from '../clock.js';
import { ApiError, isConnectionRefused, isExpiredOrGone, isInternalError, isTooLargeResourceVersion, isTooManyRequests } from '../kube/api-error.js';
import { ConnectionStalledError, watchStalled } from '../kube/http.js';
import type { KubeObject, ListDecodeOptions, ListerWatcher, ListOptions, Status, Watch, WatchEvent, WatchOptions } from '../kube/types.js';
import { abortable } from '../util/abort.js';
import { formatDuration } from '../util/duration.js';
import { BackoffManager, type BackoffOptions } from './backoff.js';
import { DEFAULT_PAGE_SIZE, listAllPages, type PagedListResult } from './pager.js';
import {
  describeError,
  errorMessage,
  InformerStatsRecorder,
  type InformerEvent,
  type InformerEventKind,
  type InformerEventLevel,
  type InformerEventListener,
} from './stats.js';
import { deletionHandlingMetaNamespaceKeyFunc, newStore, type ReflectorStore, type Store } from './store.js';
import { droppedFields } from './transform.js';

/**
 * Default minimum watch timeout: 30 s (client-go's is 5 minutes). Smaller requested minimums are
 * ignored. The timeout is drawn from [min, 1.5·min).
 */
export const DEFAULT_MIN_WATCH_TIMEOUT_MS = 30 * 1000;

/**
 * How long a watch may stay silent past the end the server was asked for (or past its last byte
 * or event, if later) before it counts as stalled. With the default timeout, a dead connection is
 * noticed within 45 s + 15 s = 60 s of the watch request.
 */
export const DEFAULT_WATCH_STALL_GRACE_MS = 15 * 1000;

/** The annotation on the BOOKMARK that ends a streaming list's initial events. */
export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';

/** What the reflector was doing when an error happened. */
export type ReflectorPhase = 'list' | 'watch-open' | 'watch' | 'watch-list' | 'resync' | 'store';

/** What the reflector does next about an error. */
export type ReflectorAction =
  /** relist after a backoff wait (ListAndWatch returns) */
  | 'relist'
  /** open a new watch from the last RV, after a backoff wait or at once */
  | 'rewatch'
  /** list again at once at RV "" */
  | 'retry-list'
  /** start the streaming list again */
  | 'retry-stream'
  /** give up streaming this time; list and watch instead */
  | 'fallback-to-list'
  /** skip the event and go on */
  | 'continue';

export interface WatchErrorContext {
  phase: ReflectorPhase;
  action: ReflectorAction;
  /** The reflector's name. */
  reflector: string;
}

/**
 * Told about every error the reflector meets (client-go WatchErrorHandler, widened). Must return
 * quickly; it cannot stop the reflector (abort the run signal for that).
 */
export type WatchErrorHandler = (err: unknown, context: WatchErrorContext) => void;

export interface ReflectorOptions {
  /** For logs and events. Default: the ListerWatcher's description. */
  name?: string;
  /** ms between resync checks; 0 = never. */
  resyncPeriod?: number;
  /** Asked at every resync tick; Resync happens only when it returns true (unset = always). */
  shouldResync?: () => boolean;
  /** Minimum watch timeout (ms); counts only above 30 s. */
  minWatchTimeout?: number;
  /** ms a watch may stay silent past its timeout (or last progress) before it counts as stalled; 0 = never. */
  watchStallGrace?: number;
  /** Page size for lists (client-go WatchListPageSize); 0 = the default rules. */
  watchListPageSize?: number;
  /** Use a streaming list (sendInitialEvents) instead of list. Default false. */
  useWatchList?: boolean;
  /** How long (ms) to keep re-watching after HTTP 500s without a relist. Default 0 (off). */
  maxInternalErrorRetryDuration?: number;
  /** Skip watch objects of another apiVersion/kind (client-go expectedGVK). */
  expectedGVK?: { apiVersion: string; kind: string };
  clock?: Clock;
  /** Random numbers in [0, 1) for the watch timeout and backoff jitter. Default Math.random. */
  random?: () => number;
  backoff?: BackoffOptions;
  watchErrorHandler?: WatchErrorHandler;
  onEvent?: InformerEventListener;
  /** Where to count; the informer passes its own. */
  stats?: InformerStatsRecorder;
}

/** Thrown inside the watch loop when the run signal aborts. */
const STOP_REQUESTED = new Error('stop requested');

/** One iterator per Watch, so that a streaming list's watch can be read on after its bookmark. */
const iterators = new WeakMap<Watch, AsyncIterator<WatchEvent>>();

function iteratorOf(w: Watch): AsyncIterator<WatchEvent> {
  let it = iterators.get(w);
  if (!it) {
    it = w[Symbol.asyncIterator]();
    iterators.set(w, it);
  }
  return it;
}

const stopLate = (w: Watch): void => w.stop();

/**
 * The stall timer of one watch, from its request to its end. The server ends a watch at its
 * timeoutSeconds (kube-apiserver serves it under a context with that deadline, and its watch
 * cache sends a BOOKMARK about 2 s before it when the resourceVersion moved), so a watch that has
 * neither ended by then nor delivered anything for `grace` is taken as dead. Every chunk of bytes
 * (Watch.onProgress) and every event is progress; the timer fires at
 * max(opened + timeout, last progress) + grace, re-armed when progress came in meanwhile. Its
 * signal is the one the watch is opened with: it aborts with the run signal, and with a
 * ConnectionStalledError when the watch stalls.
 */
class WatchDeadline {
  stalled: ConnectionStalledError | undefined;
  private readonly controller = new AbortController();
  private timer: Timer | undefined;
  private endsAt: number;
  private lastProgress: number;
  private watch: Watch | undefined;
  private done = false;

  constructor(
    private readonly clock: Clock,
    private readonly timeoutSeconds: number,
    private readonly graceMs: number,
    private readonly run: AbortSignal,
    private readonly label: string,
  ) {
    const now = clock.now();
    this.endsAt = now + timeoutSeconds * 1000;
    this.lastProgress = now;
    run.addEventListener('abort', this.onRunAbort, { once: true });
    if (graceMs > 0) this.timer = clock.setTimer(timeoutSeconds * 1000 + graceMs, this.check);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The watch is open: the server's timeout runs from now. */
  opened(w: Watch): void {
    this.watch = w;
    const now = this.clock.now();
    this.endsAt = now + this.timeoutSeconds * 1000;
    this.lastProgress = now;
    w.onProgress?.(this.progress);
  }

  readonly progress = (): void => {
    this.lastProgress = this.clock.now();
  };

  stop(): void {
    if (this.done) return;
    this.done = true;
    this.timer?.stop();
    this.timer = undefined;
    this.run.removeEventListener('abort', this.onRunAbort);
  }

  private readonly onRunAbort = (): void => {
    this.controller.abort(this.run.reason);
  };

  private readonly check = (): void => {
    this.timer = undefined;
    if (this.done) return;
    const now = this.clock.now();
    const due = Math.max(this.endsAt, this.lastProgress) + this.graceMs;
    if (now < due) {
      this.timer = this.clock.setTimer(due - now, this.check);
      return;
    }
    const silent = formatDuration(now - this.lastProgress);
    const why = 'a half-open connection or a hung API server';
    this.stalled = new ConnectionStalledError(
      this.watch
        ? `${this.label} stalled: nothing arrived for ${silent}, and the server did not end it at its ${this.timeoutSeconds}s timeout (${why})`
        : `${this.label} request got no answer within ${silent} (${why})`,
    );
    this.stop();
    this.controller.abort(this.stalled);
    this.watch?.stop();
  };
}

/** The stall timer of each open watch (a streaming list's watch is read on by the watch loop). */
const deadlines = new WeakMap<Watch, WatchDeadline>();

/** Stops a watch and its stall timer. */
function endWatch(w: Watch): void {
  w.stop();
  deadlines.get(w)?.stop();
}

/** The BOOKMARK that ends a streaming list's initial events. */
function endsInitialEvents(obj: KubeObject): boolean {
  return obj.metadata.annotations?.[INITIAL_EVENTS_END_ANNOTATION] === 'true';
}

/** Connection refused or 429: the watch can be re-opened from the same RV after a backoff. */
export function isWatchErrorRetriable(err: unknown): boolean {
  return isConnectionRefused(err) || isTooManyRequests(err);
}

const EOF_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE', 'UND_ERR_SOCKET', 'ETIMEDOUT']);

/** A watch stream that ended this way closed, rather than failed (apimachinery net.IsProbableEOF). */
export function isProbableEOF(err: unknown): boolean {
  if (err === null || typeof err !== 'object') return false;
  const e = err as { networkCode?: unknown; code?: unknown; message?: unknown };
  if (typeof e.networkCode === 'string' && EOF_CODES.has(e.networkCode)) return true;
  if (typeof e.code === 'string' && EOF_CODES.has(e.code)) return true;
  const msg = typeof e.message === 'string' ? e.message : '';
  return /\b(unexpected )?EOF\b|connection reset by peer|use of closed network connection|premature close|socket hang up/i.test(msg);
}

function levelOf(err: unknown): InformerEventLevel {
  if (isExpiredOrGone(err) || isProbableEOF(err)) return 'info';
  if (isWatchErrorRetriable(err)) return 'warning';
  return 'error';
}

/** Retries HTTP 500 watch errors for a while (client-go retryWithDeadline). */
class RetryWithDeadline {
  private firstErrorTime: number | undefined;
  private lastErrorTime: number | undefined;

  constructor(
    private readonly maxRetryDuration: number,
    private readonly minResetPeriod: number,
    private readonly isRetryable: (err: unknown) => boolean,
    private readonly clock: Clock,
  ) {}

  after(err: unknown): void {
    if (err !== undefined && this.isRetryable(err)) {
      const now = this.clock.now();
      this.lastErrorTime = now;
      if (this.firstErrorTime === undefined) this.firstErrorTime = now;
    }
  }

  shouldRetry(): boolean {
    if (this.maxRetryDuration <= 0) return false;
    const now = this.clock.now();
    if (now - (this.firstErrorTime ?? now) <= this.maxRetryDuration) return true;
    if (now - (this.lastErrorTime ?? now) <= this.minResetPeriod) return false;
    this.firstErrorTime = undefined;
    this.lastErrorTime = undefined;
    return true;
  }
}

/** Shared between the resync timer and the watch loop of one ListAndWatch. */
interface ResyncState {
  error: unknown;
  hasError: boolean;
  /** The watch being read, so a Resync error can end it. */
  current: Watch | undefined;
}

interface HandleWatchOptions {
  /** The RV the watch was opened at. */
  startRV: string;
  setRV: (rv: string) => void;
  /** Streaming lists: take the RV only from non-Added events. */
  rvFromNonAddedOnly?: boolean;
  /** Streaming lists: return at the initial-events-end bookmark. */
  exitOnInitialEventsEnd?: boolean;
  /** The watch's stall timer: told of every event; its stall ends the watch with its error. */
  deadline?: WatchDeadline | undefined;
  resync?: ResyncState;
  /** Added to events for the stats ('stream' or 'watch'). */
  label: string;
}

interface HandleWatchResult {
  bookmarkReceived: boolean;
  events: number;
}

export class Reflector {
  readonly name: string;
  readonly stats: InformerStatsRecorder;
  private lastSyncRV = '';
  private lastSyncRVUnavailable = false;
  private paginatedResult = false;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly backoff: BackoffManager;
  private readonly resyncPeriod: number;
  private readonly shouldResync: (() => boolean) | undefined;
  private readonly minWatchTimeout: number;
  private readonly watchStallGrace: number;
  private readonly watchListPageSize: number;
  private readonly useWatchList: boolean;
  private readonly maxInternalErrorRetryDuration: number;
  private readonly expectedGVK: { apiVersion: string; kind: string } | undefined;
  private watchErrorHandler: WatchErrorHandler;
  private readonly onEvent: InformerEventListener | undefined;
  /** What the reflector is doing, for errors that leave listAndWatch. */
  private phase: ReflectorPhase = 'list';

  constructor(
    private readonly lw: ListerWatcher,
    private readonly store: ReflectorStore,
    options: ReflectorOptions = {},
  ) {
    this.name = options.name ?? lw.description;
    this.clock = options.clock ?? realClock;
    this.random = options.random ?? Math.random;
    this.backoff = new BackoffManager(this.clock, this.random, options.backoff);
    this.resyncPeriod = options.resyncPeriod ?? 0;
    this.shouldResync = options.shouldResync;
    this.minWatchTimeout = Math.max(DEFAULT_MIN_WATCH_TIMEOUT_MS, options.minWatchTimeout ?? 0);
    this.watchStallGrace = Math.max(0, options.watchStallGrace ?? DEFAULT_WATCH_STALL_GRACE_MS);
    this.watchListPageSize = options.watchListPageSize ?? 0;
    this.useWatchList = options.useWatchList ?? false;
    this.maxInternalErrorRetryDuration = options.maxInternalErrorRetryDuration ?? 0;
    this.expectedGVK = options.expectedGVK;
    this.watchErrorHandler = options.watchErrorHandler ?? (() => {});
    this.onEvent = options.onEvent;
    this.stats = options.stats ?? new InformerStatsRecorder();
  }

  /** The RV of the last list, stream or watch event applied to the store. */
  lastSyncResourceVersion(): string {
    return this.lastSyncRV;
  }

  setWatchErrorHandler(handler: WatchErrorHandler): void {
    this.watchErrorHandler = handler;
  }

  /** The RV the next list uses: "" after an unavailable RV, "0" at first, else the last-sync RV. */
  relistResourceVersion(): string {
    if (this.lastSyncRVUnavailable) return '';
    if (this.lastSyncRV === '') return '0';
    return this.lastSyncRV;
  }

  /** The RV the next streaming list starts from. */
  rewatchResourceVersion(): string {
    return this.lastSyncRVUnavailable ? '' : this.lastSyncRV;
  }

  /** ListAndWatch until the signal aborts, waiting a backoff delay between attempts. Never throws. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.listAndWatch(signal);
      } catch (err) {
        if (signal.aborted) break;
        this.reportError(
          err,
          this.phase,
          'relist',
          this.phase === 'list' ? 'list-failed' : 'watch-failed',
          `${this.phase} failed: ${describeError(err)}; relisting after backoff`,
        );
      }
      if (signal.aborted) break;
      const delay = this.backoff.step();
      this.emit('backoff', 'info', `waiting ${formatDuration(delay)} before listing again`, { delayMs: delay });
      await this.clock.sleep(delay, signal);
    }
  }

  /**
   * One list (or streaming list) followed by watches until one ends in a way that needs a relist.
   * Throws what run() hands to the watchErrorHandler with action 'relist'.
   */
  async listAndWatch(signal: AbortSignal): Promise<void> {
    let w: Watch | undefined;
    try {
      let fallbackToList = !this.useWatchList;
      if (this.useWatchList) {
        try {
          w = await this.watchList(signal);
          if (w === undefined) return; // stopped
        } catch (err) {
          if (signal.aborted) return;
          this.reportError(
            err,
            'watch-list',
            'fallback-to-list',
            'stream-failed',
            `streaming list failed: ${describeError(err)}; falling back to list and watch`,
          );
          fallbackToList = true;
          w = undefined;
        }
      }
      if (fallbackToList) await this.list(signal);
      if (signal.aborted) return;
      const handed = w;
      w = undefined; // the watch loop owns it now
      await this.watchWithResync(handed, signal);
    } finally {
      if (w) endWatch(w);
    }
  }

  private setLastSyncResourceVersion(rv: string): void {
    this.lastSyncRV = rv;
    this.stats.lastSyncResourceVersion = rv;
  }

  /** How the ListerWatcher decodes: the store's transform, and whether it drops managedFields. */
  private decodeOptions(): ListDecodeOptions | undefined {
    const transform = this.store.transformer;
    if (!transform) return undefined;
    const dropped = droppedFields(transform);
    return { transform, skipManagedFields: dropped === 'managedFields', skipManagedFieldSets: dropped !== undefined };
  }

  private countList(): void {
    this.stats.lists++;
    if (this.stats.listedOnce) this.stats.relists++;
  }

  private countWatch(): void {
    this.stats.watches++;
    if (this.stats.watches > 1) this.stats.watchRestarts++;
  }

  private watchTimeoutSeconds(): number {
    return Math.floor((this.minWatchTimeout / 1000) * (1 + this.random() / 2));
  }

  /** The stall timer for a watch about to be requested. */
  private newDeadline(timeoutSeconds: number, signal: AbortSignal, label: string): WatchDeadline {
    return new WatchDeadline(this.clock, timeoutSeconds, this.watchStallGrace, signal, label);
  }

  /** A stalled watch: counted, said once (a warning), handed to the handler. */
  private reportStall(err: ConnectionStalledError, phase: ReflectorPhase, action: ReflectorAction): void {
    this.stats.watchStalls++;
    this.stats.recordError(err, phase, this.clock.now());
    const next =
      action === 'retry-stream'
        ? `streaming again from resourceVersion ${JSON.stringify(this.rewatchResourceVersion())}`
        : `watching again from resourceVersion ${JSON.stringify(this.lastSyncRV)}`;
    this.emit('watch-closed', 'warning', `${err.message}; ${next} on a new connection`, { error: err, resourceVersion: this.lastSyncRV });
    this.callHandler(err, { phase, action, reflector: this.name });
  }

  private async list(signal: AbortSignal): Promise<void> {
    this.phase = 'list';
    const rv = this.relistResourceVersion();
    const options: ListOptions = { resourceVersion: rv };
    let pageSize = DEFAULT_PAGE_SIZE;
    if (this.watchListPageSize > 0) {
      pageSize = this.watchListPageSize;
    } else if (this.paginatedResult) {
      // An RV="0" list came back paginated: the watch cache is off, keep paging.
    } else if (rv !== '' && rv !== '0') {
      // Unpaginated so that the watch cache can serve a list at a specific RV.
      pageSize = 0;
    }
    const start = this.clock.now();
    const pagerOptions = { pageSize, signal, onRequest: () => void this.stats.listRequests++, decode: this.decodeOptions() };
    this.countList();
    this.emit('list', 'info', `listing at resourceVersion ${JSON.stringify(rv)}${pageSize > 0 ? ` (limit ${pageSize})` : ' (unpaginated)'}`, {
      resourceVersion: rv,
    });
    let result: PagedListResult;
    try {
      result = await listAllPages(this.lw, options, pagerOptions);
    } catch (err) {
      if (signal.aborted) throw err;
      if (!isExpiredOrGone(err) && !isTooLargeResourceVersion(err)) throw err;
      // The RV is gone or not yet known to this server: a quorum read brings us back.
      this.lastSyncRVUnavailable = true;
      this.reportError(
        err,
        'list',
        'retry-list',
        'list-failed',
        `list at resourceVersion ${JSON.stringify(rv)} failed: ${describeError(err)}; relisting at resourceVersion "" (quorum read)`,
      );
      this.countList();
      this.emit('list', 'info', `listing at resourceVersion ""${pageSize > 0 ? ` (limit ${pageSize})` : ' (unpaginated)'}`, { resourceVersion: '' });
      result = await listAllPages(this.lw, { resourceVersion: this.relistResourceVersion() }, pagerOptions);
    }
    // Only an RV="0" list tells whether the watch cache pages; an RV="" list always does.
    if (options.resourceVersion === '0' && result.paginated) this.paginatedResult = true;
    this.lastSyncRVUnavailable = false;
    this.phase = 'store';
    try {
      this.store.replace(result.items, result.resourceVersion);
    } catch (err) {
      throw new Error(`unable to sync list result: ${errorMessage(err)}`, { cause: err });
    }
    this.setLastSyncResourceVersion(result.resourceVersion);
    this.stats.listedOnce = true;
    this.stats.lastListAt = this.clock.now();
    const took = this.clock.now() - start;
    this.emit(
      'listed',
      'info',
      `listed ${result.items.length} objects at resourceVersion ${JSON.stringify(result.resourceVersion)} in ${result.pages} request${result.pages === 1 ? '' : 's'} (${formatDuration(took)}${result.encoding === 'protobuf' ? ', protobuf' : ''})`,
      { resourceVersion: result.resourceVersion, count: result.items.length, durationMs: took },
    );
  }

  private async watchList(signal: AbortSignal): Promise<Watch | undefined> {
    const transformer = this.store.transformer;
    let resourceVersion = '';
    let w: Watch;
    let temp: Store;
    const start0 = this.clock.now();
    for (;;) {
      if (signal.aborted) return undefined;
      this.phase = 'watch-list';
      resourceVersion = '';
      const lastKnownRV = this.rewatchResourceVersion();
      temp = newStore(deletionHandlingMetaNamespaceKeyFunc, { transformer });
      const options: WatchOptions = {
        resourceVersion: lastKnownRV,
        allowWatchBookmarks: true,
        sendInitialEvents: true,
        resourceVersionMatch: 'NotOlderThan',
        timeoutSeconds: this.watchTimeoutSeconds(),
      };
      const start = this.clock.now();
      this.countList();
      this.countWatch();
      this.emit('stream', 'info', `streaming list from resourceVersion ${JSON.stringify(lastKnownRV)}`, { resourceVersion: lastKnownRV });
      const deadline = this.newDeadline(options.timeoutSeconds!, signal, 'streaming list');
      try {
        w = await abortable(this.lw.watch(options, deadline.signal, this.decodeOptions()), deadline.signal, stopLate);
      } catch (err) {
        deadline.stop();
        if (signal.aborted) return undefined;
        if (await this.retryStream(deadline.stalled ?? err, signal)) continue;
        throw err;
      }
      deadline.opened(w);
      deadlines.set(w, deadline);
      let received: boolean;
      try {
        ({ bookmarkReceived: received } = await this.handleWatch(start, w, temp, signal, {
          startRV: lastKnownRV,
          setRV: (rv) => {
            resourceVersion = rv;
          },
          rvFromNonAddedOnly: true,
          exitOnInitialEventsEnd: true,
          deadline,
          label: 'stream',
        }));
      } catch (err) {
        endWatch(w);
        if (err === STOP_REQUESTED || signal.aborted) return undefined;
        if (await this.retryStream(err, signal)) continue;
        throw err;
      }
      if (received) break;
      endWatch(w);
      this.emit('stream-failed', 'warning', 'streaming list closed before its initial-events-end bookmark; streaming again');
    }
    this.lastSyncRVUnavailable = false;
    this.phase = 'store';
    try {
      this.store.replace(temp.list(), resourceVersion);
    } catch (err) {
      endWatch(w);
      throw new Error(`unable to sync watch-list result: ${errorMessage(err)}`, { cause: err });
    }
    this.setLastSyncResourceVersion(resourceVersion);
    this.stats.listedOnce = true;
    this.stats.lastListAt = this.clock.now();
    const took = this.clock.now() - start0;
    this.emit(
      'streamed',
      'info',
      `streamed ${temp.size()} objects up to resourceVersion ${JSON.stringify(resourceVersion)} (${formatDuration(took)}); keeping the watch`,
      {
        resourceVersion,
        count: temp.size(),
        durationMs: took,
      },
    );
    return w;
  }

  /** The side effects of a retriable streaming error; false when the caller should fall back. */
  private async retryStream(err: unknown, signal: AbortSignal): Promise<boolean> {
    if (err instanceof ConnectionStalledError) {
      this.reportStall(err, 'watch-list', 'retry-stream');
      return true;
    }
    if (isWatchErrorRetriable(err)) {
      const delay = this.backoff.step();
      this.reportError(
        err,
        'watch-list',
        'retry-stream',
        'stream-failed',
        `streaming list failed: ${describeError(err)}; backing off ${formatDuration(delay)} then streaming again`,
      );
      this.emit('backoff', 'info', `waiting ${formatDuration(delay)} before streaming again`, { delayMs: delay });
      await this.clock.sleep(delay, signal);
      return true;
    }
    if (isExpiredOrGone(err) || isTooLargeResourceVersion(err)) {
      this.lastSyncRVUnavailable = true;
      this.reportError(
        err,
        'watch-list',
        'retry-stream',
        'stream-failed',
        `streaming list failed: ${describeError(err)}; streaming again from resourceVersion ""`,
      );
      return true;
    }
    return false;
  }

  private async watchWithResync(w: Watch | undefined, signal: AbortSignal): Promise<void> {
    const resync: ResyncState = { error: undefined, hasError: false, current: undefined };
    const stopResync = this.startResync(resync);
    try {
      await this.watch(w, signal, resync);
    } finally {
      stopResync();
    }
  }

  private startResync(state: ResyncState): () => void {
    if (!(this.resyncPeriod > 0)) return () => {};
    let stopped = false;
    const tick = (): void => {
      if (stopped) return;
      try {
        if (!this.shouldResync || this.shouldResync()) {
          this.store.resync();
          this.stats.resyncs++;
          this.emit('resync', 'debug', 'resync: re-delivering cached objects to handlers due for resync');
        }
      } catch (err) {
        state.error = err;
        state.hasError = true;
        state.current?.stop();
        return; // like client-go's resync goroutine, stop ticking until the next ListAndWatch
      }
      timer = this.clock.setTimer(this.resyncPeriod, tick);
    };
    let timer = this.clock.setTimer(this.resyncPeriod, tick);
    return () => {
      stopped = true;
      timer.stop();
    };
  }

  private async watch(initial: Watch | undefined, signal: AbortSignal, resync: ResyncState): Promise<void> {
    let w = initial;
    let deadline = initial ? deadlines.get(initial) : undefined;
    const retry = new RetryWithDeadline(this.maxInternalErrorRetryDuration, 60_000, isInternalError, this.clock);
    for (;;) {
      if (signal.aborted) {
        if (w) endWatch(w);
        return;
      }
      const start = this.clock.now();
      if (!w) {
        this.phase = 'watch-open';
        const rv = this.lastSyncRV;
        const options: WatchOptions = { resourceVersion: rv, timeoutSeconds: this.watchTimeoutSeconds(), allowWatchBookmarks: true };
        this.countWatch();
        this.emit('watch', 'debug', `watching from resourceVersion ${JSON.stringify(rv)} (timeout ${options.timeoutSeconds} s)`, { resourceVersion: rv });
        const opening = this.newDeadline(options.timeoutSeconds!, signal, 'watch');
        try {
          w = await abortable(this.lw.watch(options, opening.signal, this.decodeOptions()), opening.signal, stopLate);
        } catch (err) {
          opening.stop();
          if (signal.aborted) return;
          // Stalled: its own deadline, or its connection found dead by an HTTP/2 PING.
          const stalled = opening.stalled ?? (err instanceof ConnectionStalledError ? watchStalled(err) : undefined);
          if (stalled) {
            this.reportStall(stalled, 'watch-open', 'rewatch');
            continue;
          }
          if (isWatchErrorRetriable(err)) {
            const delay = this.backoff.step();
            this.reportError(
              err,
              'watch-open',
              'rewatch',
              'watch-failed',
              `watch failed: ${describeError(err)}; backing off ${formatDuration(delay)} then watching again without a relist`,
            );
            this.emit('backoff', 'info', `waiting ${formatDuration(delay)} before watching again`, { delayMs: delay });
            await this.clock.sleep(delay, signal);
            continue;
          }
          throw err;
        }
        opening.opened(w);
        deadlines.set(w, opening);
        deadline = opening;
      }
      this.phase = 'watch';
      let err: unknown;
      try {
        await this.handleWatch(start, w, this.store, signal, {
          startRV: this.lastSyncRV,
          setRV: (rv) => this.setLastSyncResourceVersion(rv),
          resync,
          deadline,
          label: 'watch',
        });
      } catch (e) {
        err = e;
      }
      endWatch(w);
      w = undefined;
      deadline = undefined;
      retry.after(err);
      if (err === undefined) continue; // closed normally: re-watch from lastSync, no relist
      if (err === STOP_REQUESTED || signal.aborted) return;
      if (err instanceof ConnectionStalledError) {
        // Not a close: the connection is dead. Re-watched at once, on a new one.
        this.reportStall(err, 'watch', 'rewatch');
        continue;
      }
      if (resync.hasError && err === resync.error) {
        this.reportError(err, 'resync', 'relist', 'watch-failed', `resync failed: ${describeError(err)}; relisting after backoff`);
        return;
      }
      if (isExpiredOrGone(err)) {
        // Not the unavailable flag: a list at the last RV means "no older than", which works.
        this.reportError(
          err,
          'watch',
          'relist',
          'watch-failed',
          `watch ended: ${describeError(err)}; relisting at resourceVersion ${JSON.stringify(this.lastSyncRV)} after backoff`,
        );
        return;
      }
      if (isTooManyRequests(err)) {
        const delay = this.backoff.step();
        this.reportError(
          err,
          'watch',
          'rewatch',
          'watch-failed',
          `watch ended: ${describeError(err)}; backing off ${formatDuration(delay)} then watching again`,
        );
        this.emit('backoff', 'info', `waiting ${formatDuration(delay)} before watching again`, { delayMs: delay });
        await this.clock.sleep(delay, signal);
        continue;
      }
      if (isInternalError(err) && retry.shouldRetry()) {
        this.reportError(err, 'watch', 'rewatch', 'watch-failed', `watch ended: ${describeError(err)}; watching again`);
        continue;
      }
      this.reportError(err, 'watch', 'relist', 'watch-failed', `watch ended with an error: ${describeError(err)}; relisting after backoff`);
      return;
    }
  }

  /**
   * Reads a watch into `store` until it closes, errors, is stopped or (streaming) reaches the
   * initial-events-end bookmark. Resolves on a normal close; throws the error otherwise
   * (STOP_REQUESTED when the signal aborted).
   */
  private async handleWatch(start: number, w: Watch, store: ReflectorStore, signal: AbortSignal, opts: HandleWatchOptions): Promise<HandleWatchResult> {
    const onAbort = (): void => w.stop();
    signal.addEventListener('abort', onAbort, { once: true });
    const resync = opts.resync;
    const deadline = opts.deadline;
    if (resync) resync.current = w;
    let events = 0;
    let bookmarkReceived = false;
    let rvFollows = !opts.rvFromNonAddedOnly && opts.startRV !== '' && opts.startRV !== '0';
    let lostConnection: unknown;
    try {
      if (resync?.hasError) throw resync.error;
      const it = iteratorOf(w);
      for (;;) {
        let r: IteratorResult<WatchEvent>;
        try {
          r = await it.next();
        } catch (err) {
          if (signal.aborted) throw STOP_REQUESTED;
          if (deadline?.stalled) throw deadline.stalled;
          // Its connection found dead by an HTTP/2 PING: a stall, as the deadline's own.
          if (err instanceof ConnectionStalledError || !isProbableEOF(err)) throw err;
          lostConnection = err;
          break;
        }
        if (r.done || signal.aborted || resync?.hasError || deadline?.stalled) break;
        deadline?.progress();
        const event = r.value;
        const rv = this.applyEvent(event, store);
        if (rv === undefined) continue;
        if (event.type === 'BOOKMARK' && endsInitialEvents(event.object)) bookmarkReceived = true;
        if (event.type !== 'ADDED') rvFollows = true;
        if (rvFollows) {
          opts.setRV(rv);
          store.updateResourceVersion?.(rv);
        }
        events++;
        if (opts.exitOnInitialEventsEnd && bookmarkReceived) {
          return { bookmarkReceived, events };
        }
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      if (resync) resync.current = undefined;
    }
    if (signal.aborted) throw STOP_REQUESTED;
    if (resync?.hasError) throw resync.error;
    if (deadline?.stalled) throw deadline.stalled;
    this.watchEnded(start, events, lostConnection, opts.label);
    return { bookmarkReceived, events };
  }

  /**
   * One watch event: its object goes to the store, a bookmark is counted. Returns the
   * resourceVersion the event carries, or undefined when it was skipped (an object we cannot read
   * or of another kind; a warning says so). An ERROR event throws its Status as an ApiError.
   */
  private applyEvent(event: WatchEvent, store: ReflectorStore): string | undefined {
    const receivedAt = this.clock.now();
    const type = event.type;
    const stats = this.stats;
    if (Object.hasOwn(stats.events, type)) stats.events[type]++;
    if (type === 'ERROR') {
      throw ApiError.fromStatus(event.object as unknown as Status);
    }
    const obj = event.object as KubeObject | undefined;
    const meta = obj?.metadata;
    if (!obj || typeof meta !== 'object' || meta === null) {
      this.warn(new Error(`unable to understand watch event ${JSON.stringify(event).slice(0, 200)}`), 'store');
      return undefined;
    }
    if (!this.acceptsKind(obj)) return undefined;
    const rv = meta.resourceVersion ?? '';
    switch (type) {
      case 'ADDED':
      case 'MODIFIED':
      case 'DELETED':
        this.writeToStore(store, type, obj, receivedAt);
        break;
      case 'BOOKMARK':
        stats.bookmarks++;
        if (this.onEvent)
          this.emit('bookmark', 'debug', `bookmark at resourceVersion ${JSON.stringify(rv)}${endsInitialEvents(obj) ? ' (end of initial events)' : ''}`, {
            resourceVersion: rv,
          });
        break;
      default:
        this.warn(new Error(`unknown watch event type ${JSON.stringify(type)}`), 'store');
    }
    return rv;
  }

  private acceptsKind(obj: KubeObject): boolean {
    if (obj.kind === 'Table' && typeof obj.apiVersion === 'string' && obj.apiVersion.startsWith('meta.k8s.io/')) {
      this.warn(new Error('watch event object is a Table; skipped'), 'store');
      return false;
    }
    const gvk = this.expectedGVK;
    if (gvk && (obj.apiVersion !== gvk.apiVersion || obj.kind !== gvk.kind)) {
      this.warn(new Error(`expected ${gvk.apiVersion}, Kind=${gvk.kind}, but watch event object had ${obj.apiVersion ?? ''}, Kind=${obj.kind ?? ''}`), 'store');
      return false;
    }
    return true;
  }

  /** A store that throws costs a warning, not the watch. */
  private writeToStore(store: ReflectorStore, type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: KubeObject, receivedAt: number): void {
    const info = { eventType: type, receivedAt };
    try {
      if (type === 'ADDED') store.add(obj, info);
      else if (type === 'MODIFIED') store.update(obj, info);
      else store.delete(obj, info);
    } catch (err) {
      const verb = type === 'ADDED' ? 'add' : type === 'MODIFIED' ? 'update' : 'delete';
      const name = obj.metadata.namespace ? `${obj.metadata.namespace}/${obj.metadata.name ?? ''}` : (obj.metadata.name ?? '');
      this.warn(new Error(`unable to ${verb} watch event object ${name} to store: ${errorMessage(err)}`, { cause: err }), 'store');
    }
  }

  /**
   * A watch that ended without an error of its own: closed within a second with no events is an
   * error (client-go's "very short watch"); a lost connection is reported, and re-watched like a
   * close.
   */
  private watchEnded(start: number, events: number, lostConnection: unknown, label: string): void {
    const took = this.clock.now() - start;
    if (took < 1000 && events === 0) {
      throw new Error(`very short watch: ${this.name}: Unexpected watch close - watch lasted less than a second and no items received`);
    }
    if (lostConnection !== undefined) {
      this.stats.recordError(lostConnection, label, this.clock.now());
      this.emit(
        'watch-closed',
        'warning',
        `${label} connection lost after ${formatDuration(took)} and ${events} events (${describeError(lostConnection)}); watching again from resourceVersion ${JSON.stringify(this.lastSyncRV)}`,
        {
          error: lostConnection,
          count: events,
          durationMs: took,
        },
      );
      this.callHandler(lostConnection, { phase: 'watch', action: 'rewatch', reflector: this.name });
    } else {
      this.emit('watch-closed', 'debug', `${label} closed by the server after ${formatDuration(took)} and ${events} events`, {
        count: events,
        durationMs: took,
      });
    }
  }

  private warn(err: Error, phase: ReflectorPhase): void {
    this.reportError(err, phase, 'continue', 'warning', err.message);
  }

  private reportError(err: unknown, phase: ReflectorPhase, action: ReflectorAction, kind: InformerEventKind, message: string): void {
    this.stats.recordError(err, phase, this.clock.now());
    this.emit(kind, kind === 'warning' ? 'warning' : levelOf(err), message, { error: err });
    this.callHandler(err, { phase, action, reflector: this.name });
  }

  private callHandler(err: unknown, ctx: WatchErrorContext): void {
    try {
      this.watchErrorHandler(err, ctx);
    } catch {
      // A failing handler must not stop the reflector.
    }
  }

  private emit(kind: InformerEventKind, level: InformerEventLevel, message: string, extra?: Partial<InformerEvent>): void {
    if (!this.onEvent) return;
    const event: InformerEvent = { kind, level, at: this.clock.now(), message, source: this.name, ...extra };
    try {
      this.onEvent(event);
    } catch {
      // Listeners must not break the reflector.
    }
  }
}
