/**
 * Running informers for a command: start them, wait for their caches to sync, and fail fast when
 * the first list is refused (401, 403, 404) or the server cannot be reached before anything synced.
 * After sync, the informers recover by themselves (relist, re-watch) and say so on stderr.
 */
import { ClusterError } from '../errors.js';
import { ApiError, toCliError, type Kube } from '../kube/index.js';
import type { InformerEvent, SharedIndexInformer } from '../informer/index.js';

export interface SyncOptions {
  signal: AbortSignal;
  timeoutMs: number;
  /** Called for each informer event (relists, watch restarts, backoffs) for progress output. */
  onEvent?: (event: InformerEvent) => void;
}

function fatalBeforeSync(err: unknown): boolean {
  if (!(err instanceof ApiError)) return false;
  if (err.networkCode) return true;
  return err.code === 401 || err.code === 403 || err.code === 404 || err.code === 400 || err.code === 422;
}

/** Starts `informers` and resolves once all have synced; rejects with a CliError otherwise. */
export async function runUntilSynced(kube: Kube, informers: SharedIndexInformer[], options: SyncOptions): Promise<void> {
  const ctx = { server: kube.connection.server, user: kube.connection.userName };
  let fatal: unknown;
  let wake: (() => void) | undefined;
  const unsubscribe = informers.map((inf) =>
    inf.onEvent((e) => {
      if (!inf.hasSynced() && (e.kind === 'list-failed' || e.kind === 'watch-failed' || e.kind === 'stream-failed') && fatalBeforeSync(e.error)) {
        // Not passed on as progress: the reflector's "relisting after backoff" would be wrong (we
        // stop), and the error itself is what the command reports, once.
        fatal ??= e.error;
        wake?.();
        return;
      }
      options.onEvent?.(e);
    }),
  );
  for (const inf of informers) if (!inf.hasStarted()) void inf.run(options.signal);
  const deadline = Date.now() + options.timeoutMs;
  try {
    for (;;) {
      if (fatal) throw toCliError(fatal, ctx);
      if (informers.every((i) => i.hasSynced())) return;
      if (options.signal.aborted) throw new Error('interrupted');
      const left = deadline - Date.now();
      if (left <= 0) {
        const pending = informers.filter((i) => !i.hasSynced()).map((i) => i.name);
        const last = informers.map((i) => i.stats().lastError).find(Boolean);
        throw new ClusterError(`informer caches did not sync within ${Math.round(options.timeoutMs / 1000)}s: ${pending.join(', ')}${last ? ` (last error: ${last.message})` : ''}`, {
          hint: 'pass a longer --sync-timeout, or check the API server',
        });
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
        const t = setTimeout(resolve, Math.min(left, 50));
        options.signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
      });
    }
  } finally {
    for (const u of unsubscribe) u();
  }
}
