/**
 * Triggers: the write a trace asks for, made, and the trigger it starts the trace from.
 *
 * Contract:
 * - One request, one call: annotate, restart (kubectl rollout restart's annotation on the pod
 *   template), scale, a burst of N annotations sent all at once, or a server-side apply.
 * - The trigger says in words what was written, when our clock sent it, and the resourceVersion
 *   and generation the server gave the (last) write: the trace's hops are measured from it.
 * - A request the target cannot take (--restart without a pod template, --scale without
 *   spec.replicas) is a UsageError before anything is written.
 */
import type { Clock } from '../clock.js';
import { UsageError } from '../errors.js';
import { ObjectWriter, groupResource, type Kube, type KubeObject, type ResourceInfo } from '../kube/index.js';
import type { TraceTrigger, TriggerKind } from './types.js';

export type TriggerRequest =
  | { kind: 'annotate'; key: string; value: string }
  | { kind: 'restart' }
  | { kind: 'scale'; replicas: number }
  | { kind: 'burst'; count: number }
  /** Server-side apply of a manifest of the target (which may not exist yet); `source` names where it came from. */
  | { kind: 'apply'; manifest: KubeObject; source: string }
  /**
   * Someone else's next change. With `createdAt`: the target was created after the watch began (a
   * set's selector found it then), and its creation, seen at that time, is the change. With
   * `ignoreStatus`: a version that differs from the baseline in its status alone (its controller
   * reporting, not someone changing it) is not the change.
   */
  | { kind: 'watch'; createdAt?: number; ignoreStatus?: boolean };

/** A request that writes. */
export type WriteRequest = Exclude<TriggerRequest, { kind: 'watch' }>;

/** The field manager of our server-side applies, as kubectl's is "kubectl". */
export const APPLY_FIELD_MANAGER = 'kubectl-informer-trace';

export interface WriteTarget {
  info: ResourceInfo;
  namespace: string | undefined;
  name: string;
}

export interface Written {
  trigger: TraceTrigger;
  /** An apply that stored nothing new: no watch event, no hop will follow. */
  unchanged: boolean;
}

/** Makes the requested write(s) to the target, `current` as the cache holds it (absent: only an apply can create it). */
export async function writeTrigger(
  kube: Kube,
  target: WriteTarget,
  current: KubeObject | undefined,
  request: WriteRequest,
  clock: Clock,
  signal: AbortSignal,
): Promise<Written> {
  const { info, namespace, name } = target;
  const writer = new ObjectWriter(kube.client);
  const what = `${groupResource(info)}/${name}${namespace && info.namespaced ? ` in ${namespace}` : ''}`;
  const at = clock.now();
  if (request.kind === 'apply') {
    const written = await writer.apply(info, namespace, name, request.manifest, APPLY_FIELD_MANAGER, signal);
    const result = !current ? 'created' : written.metadata.resourceVersion === current.metadata.resourceVersion ? 'unchanged' : 'configured';
    return {
      trigger: {
        ...triggerOf('apply', `applied ${what} from ${request.source} (server-side, field manager ${APPLY_FIELD_MANAGER}): ${result}`, at, written, 1),
        applied: result,
      },
      unchanged: result === 'unchanged',
    };
  }
  if (!current) throw new UsageError(`${info.kind}/${name} is not in the cache`);
  if (request.kind === 'burst') {
    // All at once, as a busy writer would: the server applies them one after another, so the
    // informer sees N MODIFIED events in quick succession.
    const written = await Promise.all(
      Array.from({ length: request.count }, (_, i) =>
        writer.mergePatch(info, namespace, name, { metadata: { annotations: { 'informer-trace/burst': String(i + 1) } } }, signal),
      ),
    );
    const last = written.reduce((a, b) => ((b.metadata.generation ?? 0) > (a.metadata.generation ?? 0) ? b : a));
    return {
      trigger: triggerOf('burst', `annotated ${what} ${request.count} times: informer-trace/burst=1..${request.count}`, at, last, request.count),
      unchanged: false,
    };
  }
  const { patch, wrote } = patchFor(request, info, current, what, clock);
  const last = await writer.mergePatch(info, namespace, name, patch, signal);
  return { trigger: triggerOf(request.kind, wrote, at, last, 1), unchanged: false };
}

/** The merge patch of a single write, and what it writes in words. */
function patchFor(
  request: Extract<WriteRequest, { kind: 'annotate' | 'restart' | 'scale' }>,
  info: ResourceInfo,
  current: KubeObject,
  what: string,
  clock: Clock,
): { patch: unknown; wrote: string } {
  switch (request.kind) {
    case 'annotate':
      return { patch: { metadata: { annotations: { [request.key]: request.value } } }, wrote: `annotated ${what}: ${request.key}=${request.value}` };
    case 'restart': {
      if (!(current.spec as { template?: unknown } | undefined)?.template)
        throw new UsageError(`--restart needs a workload with a pod template; ${info.kind} has none`);
      const stamp = new Date(clock.now()).toISOString();
      return {
        patch: { spec: { template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': stamp } } } } },
        wrote: `restarted ${what}: spec.template.metadata.annotations["kubectl.kubernetes.io/restartedAt"]=${stamp}`,
      };
    }
    case 'scale': {
      if (typeof (current.spec as { replicas?: unknown } | undefined)?.replicas !== 'number')
        throw new UsageError(`--scale needs a workload with spec.replicas; ${info.kind} has none`);
      const from = (current.spec as { replicas: number }).replicas;
      return { patch: { spec: { replicas: request.replicas } }, wrote: `scaled ${what}: spec.replicas ${from}→${request.replicas}` };
    }
  }
}

function triggerOf(kind: TriggerKind, wrote: string, at: number, written: KubeObject, writes: number): TraceTrigger {
  return { kind, wrote, at, resourceVersion: written.metadata.resourceVersion, generation: written.metadata.generation, writes };
}
