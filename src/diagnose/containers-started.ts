/**
 * The link `containers-started`: did the node start the containers of every scheduled Pod, and are
 * they ready? A definite problem (an image that cannot be pulled, a crash loop, a node gone) is
 * broken at once; a slow one after the grace. A failed attempt of a workload that retries is said
 * with its retries so far.
 */
import type { KubeObject } from '../kube/index.js';
import { formatDuration } from '../util/duration.js';
import { type Context, isReady, type LinkResult, live, MAX_OBJECTS, type Obj, ok, phaseOf, plural } from './context.js';
import { controllerUid } from './evidence.js';
import { knowledgeOf } from './kinds.js';
import { type PodProblem, podProblem } from './pod-problem.js';

export function checkContainers(ctx: Context, targetKind: string, target: KubeObject): LinkResult {
  const candidates = ctx.pods.filter((p) => {
    if (!live(p) || !(p.spec as { nodeName?: string } | undefined)?.nodeName) return false;
    const phase = phaseOf(p);
    if (phase === 'Succeeded') return false;
    // A failed Pod of a workload that retries is one attempt: it counts while the workload still
    // retries, and its Failed condition (status-conditions) is where one that gave up is reported.
    if (phase === 'Failed') return !attemptsOver(ctx, p, { kind: targetKind, obj: target });
    return !isReady(p);
  });
  const scheduled = ctx.pods.filter((p) => live(p) && (p.spec as { nodeName?: string } | undefined)?.nodeName);
  if (candidates.length === 0) return ok(scheduled.length ? `${plural(scheduled.length, 'scheduled Pod')} ready or finished` : 'no scheduled Pods');
  let nodes: Map<string, KubeObject> | undefined;
  if (ctx.input.nodes.seen) nodes = new Map(ctx.input.nodes.value.map((n) => [n.metadata.name ?? '', n]));
  const problems: PodProblem[] = [];
  let unseenNode = 0;
  for (const p of candidates) {
    const r = podProblem(ctx, p, nodes);
    if (r === 'unseen-node') unseenNode++;
    else if (r) problems.push(r);
  }
  const broken = problems.filter((p) => p.definite || p.forMs > ctx.grace).sort((a, b) => Number(b.definite) - Number(a.definite) || b.forMs - a.forMs);
  if (broken.length > 0) return firstBroken(broken, { kind: targetKind, obj: target });
  if (unseenNode > 0)
    return { status: 'unknown', detail: `${plural(unseenNode, 'Pod')} not ready and their nodes could not be seen`, evidence: [], next: ['kubectl get nodes'] };
  return { status: 'progressing', detail: `${plural(problems.length, 'Pod')} starting (${problems[0] ? problems[0].reason : ''})`, evidence: [], next: [] };
}

/** The Pod's controller finished or gave up, when it is a workload that retries its failed Pods. */
function attemptsOver(ctx: Context, pod: KubeObject, target: Obj): boolean {
  const uid = controllerUid(pod);
  const owner = uid === target.obj.metadata.uid ? target : ctx.input.descendants.find((d) => d.obj.metadata.uid === uid);
  if (!owner) return false;
  return knowledgeOf(owner.kind, owner.obj)?.retries?.over(owner.obj) ?? false;
}

/** The Pods broken for the same reason as the worst one, each node's evidence once however many Pods it explains. */
function firstBroken(broken: PodProblem[], target: Obj): LinkResult {
  const first = broken[0]!;
  const same = broken.filter((b) => b.reason === first.reason);
  const evidence = same.slice(0, MAX_OBJECTS).flatMap((b) => b.evidence);
  const seen = new Set<string>();
  const deduped = evidence.filter((e) => {
    const key = `${e.object.kind}/${e.object.name}/${e.source}/${e.type ?? ''}/${e.reason}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const retries = knowledgeOf(target.kind, target.obj)?.retries;
  const retriesNote = retries && phaseOf(first.pod) === 'Failed' ? retries.note(target.obj) : '';
  return {
    status: 'broken',
    detail: `${same.length === 1 ? `Pod/${first.pod.metadata.name}` : `${same.length} Pods`}: ${first.reason}${first.definite ? '' : ` for ${formatDuration(first.forMs)}`}${retriesNote}`,
    evidence: deduped,
    next: [...new Set(first.next)],
  };
}
