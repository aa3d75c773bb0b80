/**
 * Starts what `top` (and `check --controller`) watch: the leader Leases of every namespace through a
 * shared informer, the metrics sources discovered for them (src/metrics/discover-targets.ts) with
 * the user's --metrics merged in, a poller over those sources, and the TopModel joining both.
 *
 * The LeaseCandidates of coordinated leader election are watched beside the Leases when the API
 * server serves them (lease-candidates.ts); a refusal leaves `candidates` saying so, once.
 *
 * Partial failures are said and survived: Leases that cannot be listed leave `leaseError` set and
 * the queues shown without them; each discovery step refused is one line in `discoveryErrors`.
 * Stopping is the caller's signal; close() releases the model.
 */
import { realClock } from '../clock.js';
import { runUntilSynced, SharedIndexInformer } from '../informer/index.js';
import { LEASES, ResourceListerWatcher, type Kube } from '../kube/index.js';
import {
  discoverTargets,
  mergeUserSpecs,
  MetricsPoller,
  MultiScraper,
  QUEUE_STATS_FAMILIES,
  sourceForTarget,
  sourceOptions,
  type MetricsAccess,
} from '../metrics/index.js';
import { LeaseWatchModel } from './lease-watch-model.js';
import type { CandidatesStatus } from '../view/lease-view.js';
import { TopModel } from './top-model.js';
import type { TopTarget } from '../view/top-view.js';
import { watchLeaseCandidates } from './lease-candidates.js';

export interface TopSessionOptions {
  signal: AbortSignal;
  syncTimeoutMs: number;
  intervalMs: number;
  /** --metrics as written: SPEC or COMPONENT=SPEC. */
  userSpecs: readonly string[];
  access: MetricsAccess;
}

export interface TopSession {
  model: TopModel;
  poller: MetricsPoller;
  leases: LeaseWatchModel | null;
  leaseError: string | null;
  /** Whether LeaseCandidates are watched. */
  candidates: CandidatesStatus;
  targets: TopTarget[];
  discoveryErrors: string[];
  close(): void;
}

export async function startTopSession(kube: Kube, options: TopSessionOptions): Promise<TopSession> {
  const { signal } = options;
  let leaseError: string | null = null;
  let leases: LeaseWatchModel | null = new LeaseWatchModel({ scope: { namespace: null, name: null, selector: null } });
  const informer = new SharedIndexInformer(new ResourceListerWatcher(kube.client, LEASES, {}));
  const registration = informer.addEventHandler(leases.handler, { name: 'top' });
  const candidatesWatch = watchLeaseCandidates(kube, leases, { namespace: undefined, signal, syncTimeoutMs: options.syncTimeoutMs });
  candidatesWatch.catch(() => undefined);
  let candidates: CandidatesStatus = { access: 'unknown', error: null };
  try {
    await runUntilSynced(kube, [informer], { signal, timeoutMs: options.syncTimeoutMs });
    candidates = await candidatesWatch;
    // The informer has synced; the handler may still be delivering the initial list.
    while (!registration.hasSynced() && !signal.aborted) await realClock.sleep(10, signal);
    leases.markSynced();
    leases.start();
  } catch (err) {
    if (signal.aborted) throw err;
    leaseError = err instanceof Error ? err.message : String(err);
    leases.close();
    leases = null;
  }

  const holders = leases?.view().leases.map((l) => ({ namespace: l.namespace, name: l.name, holder: l.holder })) ?? [];
  const found = await discoverTargets(kube.client, { server: kube.connection.server, leases: holders, signal });
  const targets = mergeUserSpecs(found.targets, options.userSpecs);
  const { access } = options;
  const sources = targets.map((t) => sourceForTarget(t, sourceOptions(access, kube, QUEUE_STATS_FAMILIES)));
  const poller = new MetricsPoller(new MultiScraper(sources), { intervalMs: options.intervalMs });
  const topTargets: TopTarget[] = targets.map(({ routes: _routes, ...t }) => t);
  const model = new TopModel({ leases, leaseError, metrics: poller, targets: topTargets, discoveryErrors: found.errors });
  const held = leases;
  return {
    model,
    poller,
    leases,
    leaseError,
    candidates,
    targets: topTargets,
    discoveryErrors: found.errors,
    close() {
      model.close();
      held?.close();
    },
  };
}
