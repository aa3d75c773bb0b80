/**
 * The LeaseCandidates beside the Leases (coordinated leader election, KEP-4355), for lease-watch
 * and top: looked up in discovery first, and watched through an informer of their own only when
 * the API server serves them. Not served (the CoordinatedLeaderElection gate or its API version is
 * off, as by default): nothing is watched and nothing is said. Served but refused (403): the
 * status says "not permitted", once, and the Leases are shown as before; any other failure to
 * sync them is said the same way and is not fatal either. Discovery itself failing leaves them
 * unknown, unsaid: the Leases' own list says what is wrong with the server.
 */
import { runUntilSynced, SharedIndexInformer, waitForCacheSync, type InformerEvent } from '../informer/index.js';
import { ApiError, leaseCandidateResource, ResourceListerWatcher, type Kube, type ResourceInfo } from '../kube/index.js';
import type { CandidatesStatus } from '../view/lease-view.js';
import type { LeaseWatchModel } from './lease-watch-model.js';

export interface CandidateWatchOptions {
  /** Only this namespace's candidates; undefined for every namespace. */
  namespace: string | undefined;
  /** Stops the informer. */
  signal: AbortSignal;
  syncTimeoutMs: number;
  /** The informer's events after its sync (a lost watch, a relist), for progress lines. */
  onEvent?: (event: InformerEvent) => void;
}

function refused(err: unknown): boolean {
  const cause = err instanceof Error && err.cause instanceof ApiError ? err.cause : err;
  return cause instanceof ApiError && (cause.code === 403 || cause.code === 401);
}

/**
 * Starts watching the LeaseCandidates into `model` and resolves, with the status it also gave the
 * model, once they are synced, known not to be served, or known not to be readable. Rejects only
 * when `signal` aborts first.
 */
export async function watchLeaseCandidates(kube: Kube, model: LeaseWatchModel, options: CandidateWatchOptions): Promise<CandidatesStatus> {
  const { signal } = options;
  const settle = (status: CandidatesStatus): CandidatesStatus => {
    model.setCandidatesStatus(status);
    return status;
  };
  let resource: ResourceInfo | undefined;
  try {
    resource = await leaseCandidateResource(kube.discovery);
  } catch (err) {
    if (signal.aborted) throw err;
    // Discovery is not about candidates: whether they are served is unknown, and that is not said.
    return settle({ access: 'unknown', error: err instanceof Error ? err.message : String(err) });
  }
  if (!resource) return settle({ access: 'not served', error: null });
  const informer = new SharedIndexInformer(new ResourceListerWatcher(kube.client, resource, { namespace: options.namespace }));
  const registration = informer.addEventHandler(model.candidateHandler, { name: 'lease-candidates' });
  // Its own signal: a refused list stops this informer, not the command.
  const own = new AbortController();
  const stop = (): void => own.abort();
  signal.addEventListener('abort', stop, { once: true });
  try {
    await runUntilSynced(kube, [informer], { signal: own.signal, timeoutMs: options.syncTimeoutMs });
    await waitForCacheSync(own.signal, [() => registration.hasSynced()]);
  } catch (err) {
    own.abort();
    signal.removeEventListener('abort', stop);
    if (signal.aborted) throw err;
    return settle({ access: refused(err) ? 'not permitted' : 'failed', error: err instanceof Error ? err.message : String(err) });
  }
  if (options.onEvent) informer.onEvent(options.onEvent);
  return settle({ access: 'watched', error: null });
}
