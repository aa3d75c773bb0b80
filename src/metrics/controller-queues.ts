/**
 * Which kube-controller-manager work queue reconciles a kind, by its group and kind, and how many
 * adds a queue took between two scrapes: what `kubectl informer-trace --burst --metrics ...` puts
 * beside its own workqueue's numbers, to show how the controller's queue collapsed the same writes.
 *
 * Queue names are the ones kube-controller-manager gives its client-go queues
 * (pkg/controller/.../*_controller.go: workqueue.NewTypedRateLimitingQueueWithConfig(..., Name: ...)).
 */
import { type GroupKind, groupKindKey } from '../kube/types.js';
import type { TimedScrape } from './queue-stats.js';
import { increaseBy, SampleIndex } from './series.js';

/** By group and kind (`apps/Deployment`, core `/Namespace`): a custom resource named `Job` has none. */
const QUEUE_BY_KIND: Readonly<Record<string, string>> = {
  'apps/Deployment': 'deployment',
  'apps/ReplicaSet': 'replicaset',
  'apps/StatefulSet': 'statefulset',
  'apps/DaemonSet': 'daemonset',
  'batch/Job': 'job',
  'batch/CronJob': 'cronjob',
  '/ReplicationController': 'replicationmanager',
  '/Namespace': 'namespace',
  'autoscaling/HorizontalPodAutoscaler': 'horizontalpodautoscaler',
  'policy/PodDisruptionBudget': 'disruption',
  '/ServiceAccount': 'serviceaccount',
};

/** The kube-controller-manager queue that reconciles a group and kind, or undefined for kinds it does not own (CRDs). */
export function controllerQueueFor(gk: GroupKind): string | undefined {
  const key = groupKindKey(gk);
  return Object.hasOwn(QUEUE_BY_KIND, key) ? QUEUE_BY_KIND[key] : undefined;
}

export interface QueueAdds {
  queue: string;
  /** Sum over the sources that expose the queue in both scrapes; null when none does. */
  adds: number | null;
  /** The sources whose queue took adds (the leader, when several controller managers are scraped). */
  sources: string[];
}

/**
 * The increase of `workqueue_adds_total{name=queue}` from `before` to `after`, per source and
 * summed; reset-aware like increase(). Sources missing from either side (a failed scrape) count
 * for nothing, and a queue no source exposes is null, never 0.
 */
export function queueAddsBetween(before: ReadonlyMap<string, TimedScrape>, after: ReadonlyMap<string, TimedScrape>, queue: string): QueueAdds {
  let adds: number | null = null;
  const sources: string[] = [];
  for (const [source, a] of after) {
    const b = before.get(source);
    if (!b) continue;
    const pick = (scrape: TimedScrape) =>
      new SampleIndex(scrape.families).samples('workqueue_adds_total').filter((s) => s.labels.name === queue && s.labels.controller === undefined);
    const curr = pick(a);
    if (curr.length === 0) continue;
    const prev = pick(b);
    let inc = 0;
    for (const g of increaseBy(prev, curr, ['name']).values()) inc += g.value ?? 0;
    adds = (adds ?? 0) + inc;
    if (inc > 0) sources.push(source);
  }
  return { queue, adds, sources };
}
