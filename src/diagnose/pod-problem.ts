/**
 * Why one scheduled Pod is not running or not ready, in the order a person looks: its node (missing,
 * NotReady), its containers (an image that cannot be pulled, a crash loop, a non-zero exit), the Pod
 * failed, then containers running but not ready. Pure.
 */
import type { KubeObject } from '../kube/index.js';
import { type Context, phaseOf, plural } from './context.js';
import {
  conditionEvidence,
  conditionOf,
  containerStatuses,
  eventEvidence,
  eventReason,
  eventType,
  refOf,
  since,
  type Condition,
  type ContainerStatus,
} from './evidence.js';
import type { Evidence } from './types.js';

export interface PodProblem {
  pod: KubeObject;
  reason: string;
  /** Definitive (an error state) rather than slow. */
  definite: boolean;
  forMs: number;
  evidence: Evidence[];
  next: string[];
}

/** Waiting reasons that mean the container is still being set up, not that something failed. */
const STARTING_REASONS = new Set(['ContainerCreating', 'PodInitializing', '']);

const BAD_WAITING =
  /ErrImagePull|ImagePullBackOff|CrashLoopBackOff|CreateContainerConfigError|CreateContainerError|InvalidImageName|RunContainerError|ErrImageNeverPull|PreStartHookError|PostStartHookError/;

/** The first container (of `statuses`) waiting for a reason other than its setup, or that exited non-zero. */
export function containerProblem(ctx: Context, pod: KubeObject, statuses: ContainerStatus[], init: boolean): PodProblem | undefined {
  const ref = refOf('Pod', pod);
  const name = pod.metadata.name ?? '';
  for (const c of statuses) {
    const w = c.state?.waiting;
    if (w && !STARTING_REASONS.has(w.reason ?? '')) {
      const definite = BAD_WAITING.test(w.reason ?? '');
      const last = c.lastState?.terminated;
      const evidence: Evidence[] = [
        {
          object: ref,
          source: 'container',
          type: `${init ? 'initContainer' : 'container'} ${c.name}`,
          status: 'waiting',
          reason: w.reason ?? '',
          message: [
            w.message ?? '',
            last ? `last exit ${last.exitCode ?? '?'} (${last.reason ?? ''}) at ${last.finishedAt ?? '?'}` : '',
            c.restartCount ? `${plural(c.restartCount, 'restart')}` : '',
          ]
            .filter(Boolean)
            .join('; '),
          since: conditionOf(pod, 'ContainersReady')?.lastTransitionTime,
          forMs: since(conditionOf(pod, 'ContainersReady')?.lastTransitionTime, ctx.now),
        },
      ];
      const next = [ctx.kubectl('describe', 'Pod', name)];
      if (/CrashLoopBackOff|RunContainerError/.test(w.reason ?? '')) next.push(`kubectl logs ${name}${ctx.nsFlag()} -c ${c.name} --previous`);
      return { pod, reason: w.reason ?? 'Waiting', definite, forMs: evidence[0]!.forMs ?? 0, evidence, next };
    }
    const t = c.state?.terminated;
    if (t && (t.exitCode ?? 0) !== 0) {
      return {
        pod,
        reason: `exit code ${t.exitCode}`,
        definite: true,
        forMs: since(t.finishedAt, ctx.now) ?? 0,
        evidence: [
          {
            object: ref,
            source: 'container',
            type: `${init ? 'initContainer' : 'container'} ${c.name}`,
            status: 'terminated',
            reason: t.reason ?? 'Error',
            message: `exited with code ${t.exitCode}${t.message ? `: ${t.message}` : ''}`,
            since: t.finishedAt,
            forMs: since(t.finishedAt, ctx.now),
          },
        ],
        next: [ctx.kubectl('describe', 'Pod', name), `kubectl logs ${name}${ctx.nsFlag()} -c ${c.name}`],
      };
    }
  }
  return undefined;
}

/** The newest Warning Events about a Pod (at most two), as evidence. */
function podWarnings(ctx: Context, pod: KubeObject): Evidence[] {
  return ctx
    .eventsAbout('Pod', pod, (e) => eventType(e) === 'Warning')
    .slice(0, 2)
    .map((e) => eventEvidence(refOf('Pod', pod), e, ctx.now));
}

/** The Pod's Ready condition and how long it has been so (else since the Pod's creation). */
function readiness(ctx: Context, pod: KubeObject): { ready: Condition | undefined; readyFor: number } {
  const ready = conditionOf(pod, 'Ready');
  return { ready, readyFor: since(ready?.lastTransitionTime, ctx.now) ?? since(pod.metadata.creationTimestamp, ctx.now) ?? 0 };
}

/** Why a scheduled Pod is not ready; 'unseen-node' when only its node could tell and the Nodes were not seen. */
export function podProblem(ctx: Context, pod: KubeObject, nodes: Map<string, KubeObject> | undefined): PodProblem | 'unseen-node' | undefined {
  // The node first: a NotReady node explains every Pod on it.
  const onNode = nodes ? nodeProblem(ctx, pod, nodes) : undefined;
  if (onNode) return onNode;
  const { init, main } = containerStatuses(pod);
  const problem = containerProblem(ctx, pod, init, true) ?? containerProblem(ctx, pod, main, false);
  if (problem) {
    problem.evidence.push(...podWarnings(ctx, pod));
    return problem;
  }
  if (!nodes) return 'unseen-node';
  if (phaseOf(pod) === 'Failed') {
    const s = pod.status as { reason?: string; message?: string };
    return {
      pod,
      reason: `Pod failed${s.reason ? `: ${s.reason}` : ''}`,
      definite: true,
      forMs: readiness(ctx, pod).readyFor,
      evidence: [
        { object: refOf('Pod', pod), source: 'field', type: 'status.phase', status: 'Failed', reason: s.reason ?? 'Failed', message: s.message ?? '' },
        ...podWarnings(ctx, pod),
      ],
      next: [ctx.kubectl('describe', 'Pod', pod.metadata.name ?? '')],
    };
  }
  return notReady(ctx, pod, main);
}

/** The Pod's node does not exist, or is not Ready. */
function nodeProblem(ctx: Context, pod: KubeObject, nodes: Map<string, KubeObject>): PodProblem | undefined {
  const ref = refOf('Pod', pod);
  const nodeName = (pod.spec as { nodeName?: string }).nodeName!;
  const { ready, readyFor } = readiness(ctx, pod);
  const node = nodes.get(nodeName);
  if (!node) {
    return {
      pod,
      reason: `node ${nodeName} does not exist`,
      definite: true,
      forMs: readyFor,
      evidence: [{ object: ref, source: 'field', type: 'spec.nodeName', reason: 'NodeNotFound', message: `bound to node ${nodeName}, which does not exist` }],
      next: ['kubectl get nodes'],
    };
  }
  const nr = conditionOf(node, 'Ready');
  if (nr?.status === 'True') return undefined;
  const evidence = [
    nr
      ? conditionEvidence(refOf('Node', node), nr, ctx.now)
      : {
          object: refOf('Node', node),
          source: 'condition' as const,
          type: 'Ready',
          reason: 'NoReadyCondition',
          message: 'the node has no Ready condition',
        },
  ];
  if (ready && ready.status !== 'True') evidence.push(conditionEvidence(ref, ready, ctx.now));
  evidence.push(
    ...ctx
      .eventsAbout('Pod', pod, (e) => eventReason(e) === 'NodeNotReady')
      .slice(0, 1)
      .map((e) => eventEvidence(ref, e, ctx.now)),
  );
  return {
    pod,
    reason: `node ${nodeName} is not Ready`,
    definite: true,
    forMs: evidence[0]!.forMs ?? readyFor,
    evidence,
    next: [`kubectl describe node ${nodeName}`, ctx.kubectl('describe', 'Pod', pod.metadata.name ?? '')],
  };
}

/** No container failed: they have not started, run without being ready, or are ready while the Pod is not. */
function notReady(ctx: Context, pod: KubeObject, main: ContainerStatus[]): PodProblem {
  const ref = refOf('Pod', pod);
  const name = pod.metadata.name ?? '';
  const { ready, readyFor } = readiness(ctx, pod);
  const running = main.filter((c) => c.state?.running);
  const evidence: Evidence[] = [];
  const cr = conditionOf(pod, 'ContainersReady');
  let reason: string;
  if (main.length > 0 && running.length === main.length && main.every((c) => c.ready)) {
    // Every container is ready but the Pod is not: marked so from outside (node lifecycle, a readiness gate).
    reason = `Pod not Ready though its containers are${ready?.reason ? ` (${ready.reason})` : ''}`;
    if (ready) evidence.push(conditionEvidence(ref, ready, ctx.now));
  } else if (running.length > 0) {
    reason = `${plural(main.filter((c) => !c.ready).length, 'container')} running but not ready`;
    for (const c of main.filter((c) => !c.ready).slice(0, 2))
      evidence.push({
        object: ref,
        source: 'container',
        type: `container ${c.name}`,
        status: c.state?.running ? 'running' : 'waiting',
        reason: 'NotReady',
        message: `started ${c.state?.running?.startedAt ?? '?'}, ready false`,
        since: cr?.lastTransitionTime,
        forMs: since(cr?.lastTransitionTime, ctx.now),
      });
    if (cr) evidence.push(conditionEvidence(ref, cr, ctx.now));
  } else {
    reason = 'containers not started';
    const waiting = main.find((c) => c.state?.waiting);
    evidence.push({
      object: ref,
      source: 'container',
      type: waiting ? `container ${waiting.name}` : 'containers',
      status: 'waiting',
      reason: waiting?.state?.waiting?.reason ?? 'NoStatus',
      message: waiting?.state?.waiting?.message ?? 'the node has not reported container statuses',
      since: ready?.lastTransitionTime,
      forMs: readyFor,
    });
  }
  evidence.push(...podWarnings(ctx, pod));
  const containerName = main.find((c) => !c.ready)?.name;
  return {
    pod,
    reason,
    definite: false,
    forMs: readyFor,
    evidence,
    next: [ctx.kubectl('describe', 'Pod', name), ...(running.length > 0 && containerName ? [`kubectl logs ${name}${ctx.nsFlag()} -c ${containerName}`] : [])],
  };
}
