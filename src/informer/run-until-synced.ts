/**
 * Running informers for a command or a check: start them, wait for their caches to sync, and fail
 * fast when the first list is refused (401, 403, 404) or the server cannot be reached before
 * anything synced. After sync, the informers recover by themselves (relist, re-watch) and say so
 * through their events. An informer that stops before it syncs while the caller's signal runs (its
 * own signal ended it: see SharedIndexInformerOptions.signal) is no longer waited for; the caller
 * tells it from the others by hasSynced().
 */
import { realClock, type Clock } from '../clock.js';
import { ClusterError } from '../errors.js';
import { ApiError, toCliError, type Kube } from '../kube/index.js';
import type { InformerEvent } from './stats.js';
import { waitForCacheSync, type SharedIndexInformer } from './shared-informer.js';

export interface SyncOptions {
  signal: AbortSignal;
  timeoutMs: number;
  /** Called for each informer event (relists, watch restarts, backoffs) for progress output. */
  onEvent?: (event: InformerEvent) => void;
  clock?: Clock;
}

function fatalBeforeSync(err: unknown): boolean {
  if (!(err instanceof ApiError)) return false;
  if (err.networkCode) return true;
  return err.code === 401 || err.code === 403 || err.code === 404 || err.code === 400 || err.code === 422;
}

/** Starts `informers` and resolves once all have synced; rejects with a CliError otherwise. */
export async function runUntilSynced(kube: Kube, informers: SharedIndexInformer[], options: SyncOptions): Promise<void> {
  const clock = options.clock ?? realClock;
  const ctx = { server: kube.connection.server, user: kube.connection.userName };
  // Stops waiting for the sync on whichever comes first: a fatal error, the deadline, the caller.
  const waiting = new AbortController();
  const settled = (i: SharedIndexInformer): boolean => i.hasSynced() || (i.isStopped() && !options.signal.aborted);
  let fatal: unknown;
  let timedOut = false;
  const unsubscribe = informers.map((inf) =>
    inf.onEvent((e) => {
      if (!inf.hasSynced() && (e.kind === 'list-failed' || e.kind === 'watch-failed' || e.kind === 'stream-failed') && fatalBeforeSync(e.error)) {
        // Not passed on as progress: the reflector's "relisting after backoff" would be wrong (we
        // stop), and the error itself is what the command reports, once.
        fatal ??= e.error;
        waiting.abort();
        return;
      }
      options.onEvent?.(e);
      // Stop waiting as soon as the last one syncs, not at waitForCacheSync's next 100 ms poll: a
      // one-shot command would otherwise spend most of its time there.
      if ((e.kind === 'synced' || e.kind === 'stopped') && informers.every(settled)) waiting.abort();
    }),
  );
  const onAbort = (): void => waiting.abort();
  options.signal.addEventListener('abort', onAbort, { once: true });
  const deadline = clock.setTimer(options.timeoutMs, () => {
    timedOut = true;
    waiting.abort();
  });
  try {
    for (const inf of informers) if (!inf.hasStarted()) void inf.run(options.signal);
    const synced = await waitForCacheSync(
      waiting.signal,
      informers.map((i) => () => settled(i)),
      clock,
    );
    if (fatal) throw toCliError(fatal, ctx);
    if (synced) return;
    if (options.signal.aborted || !timedOut) throw new Error('interrupted');
    const pending = informers.filter((i) => !i.hasSynced()).map((i) => i.name);
    const last = informers.map((i) => i.stats().lastError).find(Boolean);
    throw new ClusterError(
      `informer caches did not sync within ${Math.round(options.timeoutMs / 1000)}s: ${pending.join(', ')}${last ? ` (last error: ${last.message})` : ''}`,
      {
        hint: 'pass a longer --sync-timeout, or check the API server',
      },
    );
  } finally {
    deadline.stop();
    options.signal.removeEventListener('abort', onAbort);
    for (const u of unsubscribe) u();
  }
}
