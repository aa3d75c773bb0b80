/**
 * The link `status-conditions`: what the target's own status says. Conditions that say it failed or
 * gave up are broken; for a kind the tool does not know, its readiness rule decides, and a status
 * that leaves the verdict to what it owns has its first child not ready diagnosed as a chain of its own.
 */
import type { KubeObject } from '../kube/index.js';
import { describeVerdict, type Verdict } from '../readiness/index.js';
import { formatDuration } from '../util/duration.js';
import { type Context, type LinkResult, live, MAX_OBJECTS, type Obj, ok, phaseOf, warningsAbout } from './context.js';
import { conditionEvidence, conditionOf, containerStatuses, controllerUid, refOf, since } from './evidence.js';
import { isWorkload, knowledgeOf } from './kinds.js';
import { containerProblem } from './pod-problem.js';
import { operatorQueueEvidence } from './queue-evidence.js';
import type { DiagnoseInput, Evidence } from './types.js';

/** Conditions on the target that say it failed or gave up. */
export function terminalConditions(ctx: Context, kind: string, obj: KubeObject): Evidence[] {
  const ref = refOf(kind, obj);
  const out: Evidence[] = [];
  const progressing = conditionOf(obj, 'Progressing');
  if (progressing?.status === 'False' || progressing?.reason === 'ProgressDeadlineExceeded') out.push(conditionEvidence(ref, progressing, ctx.now));
  const rf = conditionOf(obj, 'ReplicaFailure');
  if (rf?.status === 'True') out.push(conditionEvidence(ref, rf, ctx.now));
  for (const t of ['Failed', 'FailureTarget', 'Stalled']) {
    const c = conditionOf(obj, t);
    if (c?.status === 'True') out.push(conditionEvidence(ref, c, ctx.now));
  }
  return out;
}

/** Ready, or a status that leaves the verdict to what the object owns. */
export function settledOrOwned(v: Verdict): boolean {
  return v.status === 'Current' || (v.status === 'Unknown' && v.childrenDecide === true);
}

export function checkConditions(ctx: Context, kind: string, obj: KubeObject): LinkResult {
  const terminal = terminalConditions(ctx, kind, obj);
  if (terminal.length > 0) return failed(ctx, kind, obj, terminal);
  const workload = isWorkload(kind, obj);
  const v = ctx.input.readiness.judge(obj, { kind, target: true });
  const detail = describeVerdict(v);
  if (!workload && v.status === 'Suspended') return { status: 'progressing', detail: `suspended: ${detail}`, evidence: [], next: [] };
  // A kind the tool does not know: what its readiness rule says. Not ready for longer than the
  // grace (since its status last changed, or since it was created) is where it is stuck.
  if (!workload && !settledOrOwned(v)) return notReady(ctx, kind, obj, v);
  if (!workload && v.childrenDecide) {
    // Its status has no verdict of its own: what it owns decides (docs/readiness.md).
    const child = childDiagnosis(ctx, obj);
    if (child) return child;
  }
  return ok(detail);
}

/** Conditions that say it failed, with what the attempts of a workload that retries died of. */
function failed(ctx: Context, kind: string, obj: KubeObject, terminal: Evidence[]): LinkResult {
  const name = obj.metadata.name ?? '';
  const evidence = [...terminal, ...(isWorkload(kind, obj) ? [] : warningsAbout(ctx, kind, obj))];
  const next = [ctx.kubectl('describe', kind, name)];
  if (knowledgeOf(kind, obj)?.retries) {
    // What the attempts died of: the failed Pods' containers.
    const failedPods = ctx.pods
      .filter((p) => phaseOf(p) === 'Failed')
      .sort((a, b) => (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? ''));
    for (const p of failedPods.slice(0, MAX_OBJECTS)) {
      const { main } = containerStatuses(p);
      const problem = containerProblem(ctx, p, main, false);
      if (problem) evidence.push(...problem.evidence);
      else
        evidence.push({
          object: refOf('Pod', p),
          source: 'field',
          type: 'status.phase',
          status: 'Failed',
          reason: (p.status as { reason?: string }).reason ?? 'Failed',
          message: (p.status as { message?: string }).message ?? '',
        });
    }
    if (failedPods[0]) next.push(`kubectl logs ${failedPods[0].metadata.name}${ctx.nsFlag()}`);
  }
  const first = terminal[0]!;
  return { status: 'broken', detail: `${first.type} ${first.status}: ${first.reason}${first.message ? `: ${first.message}` : ''}`, evidence, next };
}

/** A kind the tool does not know, not ready by its readiness rule: failed, stuck past the grace, or in progress. */
function notReady(ctx: Context, kind: string, obj: KubeObject, v: Verdict): LinkResult {
  const detail = describeVerdict(v);
  const next = [ctx.kubectl('describe', kind, obj.metadata.name ?? '')];
  const r = conditionOf(obj, 'Ready');
  const forMs = since(v.serverTime ?? obj.metadata.creationTimestamp, ctx.now) ?? 0;
  const evidence = r && r.status !== 'True' ? [conditionEvidence(refOf(kind, obj), r, ctx.now)] : [];
  const q = operatorQueueEvidence(ctx);
  if (q && (q.reason === 'Retrying' || forMs > ctx.grace)) evidence.push(q);
  evidence.push(...warningsAbout(ctx, kind, obj));
  if (v.status === 'Failed') return { status: 'broken', detail: `failed: ${detail}`, evidence, next };
  if (forMs > ctx.grace) return { status: 'broken', detail: `not ready for ${formatDuration(forMs)}: ${detail}`, evidence, next };
  return { status: 'progressing', detail, evidence: [], next: [] };
}

/**
 * The first child of a custom resource that is not ready, diagnosed as a chain of its own when it is
 * a workload kind (a Deployment's ReplicaSets and Pods, a Job's Pods), so a custom resource stuck
 * on what it owns gets the diagnosis of that.
 */
function childDiagnosis(ctx: Context, obj: KubeObject): LinkResult | undefined {
  const uid = obj.metadata.uid;
  const direct = ctx.input.descendants.filter((d) => controllerUid(d.obj) === uid && live(d.obj));
  const notReadyWhy = (d: Obj): string | undefined => ctx.input.readiness.childNotReady(d.obj, { kind: d.kind });
  const stuck = direct.find((d) => notReadyWhy(d) !== undefined);
  if (!stuck) return undefined;
  const why = notReadyWhy(stuck)!;
  if (!isWorkload(stuck.kind, stuck.obj)) return { status: 'progressing', detail: why, evidence: [], next: [] };
  const below: DiagnoseInput['descendants'] = [];
  let frontier = [stuck.obj.metadata.uid];
  while (frontier.length > 0) {
    const found = ctx.input.descendants.filter((d) => frontier.includes(controllerUid(d.obj)));
    below.push(...found);
    frontier = found.map((d) => d.obj.metadata.uid);
  }
  const d = ctx.diagnose({
    ...ctx.input,
    operator: undefined,
    target: { kind: stuck.kind, namespace: stuck.obj.metadata.namespace, name: stuck.obj.metadata.name ?? '' },
    object: stuck.obj,
    descendants: below,
  });
  if (d.verdict !== 'broken') return { status: 'progressing', detail: why, evidence: [], next: [] };
  return { status: 'broken', detail: `its ${d.summary}`, evidence: d.evidence, next: d.next };
}
