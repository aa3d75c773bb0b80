/**
 * Where a reconcile chain is stuck, from what the caches hold: the target, its descendants, the
 * namespace's Events, the Nodes, the controllers' leader Leases and (optionally) their queues.
 *
 * The links are checked in the order people diagnose a stuck reconcile, each in a file of its own
 * name. The first broken one is the answer, with its evidence (object, condition or Event, for how
 * long) and the commands a person would run next. A step still inside the grace period is
 * "progressing", not broken. What could not be read (403 on Events or Leases, metrics unreachable)
 * is listed as unseen, and then the verdict is never "healthy": it is "unknown" unless a link was
 * found broken by what was seen.
 */
import type { KubeObject } from '../kube/index.js';
import { describeVerdict } from '../readiness/index.js';
import { checkAccepted, notAccepted } from './accepted.js';
import { checkChildren } from './children-created.js';
import { checkContainers } from './containers-started.js';
import { Context, type LinkResult, na } from './context.js';
import { checkObserved } from './controller-observed.js';
import { hasObservedGeneration, isWorkload, knowledgeOf } from './kinds.js';
import { checkOperatorObserved } from './operator-observed.js';
import { checkScheduled } from './scheduled.js';
import { checkSpec } from './spec.js';
import { checkConditions, settledOrOwned, terminalConditions } from './status-conditions.js';
import type { DiagnoseInput, Diagnosis, LinkCheck, LinkName } from './types.js';

export { DEFAULT_GRACE_MS } from './context.js';

/** The link `controller-observed`, by who reconciles the kind: kube-controller-manager, an operator the caller found, or whoever writes its observedGeneration. */
function checkControllerObserved(ctx: Context, kind: string, obj: KubeObject, converged: boolean): LinkResult {
  if (isWorkload(kind, obj)) return checkObserved(ctx, kind, obj, converged);
  // An operator's kind: the caller found the operator (custom resources only), and the tool knows nothing of the kind.
  if (ctx.input.operator !== undefined && knowledgeOf(kind, obj) === undefined) return checkOperatorObserved(ctx, kind, obj, converged);
  if (hasObservedGeneration(kind, obj)) return checkObserved(ctx, kind, obj, converged);
  return na('no observedGeneration and no known controller');
}

/** Every link, in order, with what it found. */
function walk(ctx: Context, kind: string, obj: KubeObject, converged: boolean): [LinkName, LinkResult][] {
  const podKinds = isWorkload(kind, obj) || ctx.pods.length > 0;
  const noPods = na('no Pods in the owner chain');
  return [
    ['spec', checkSpec(ctx, kind, obj, converged)],
    ['accepted', checkAccepted(obj)],
    ['controller-observed', checkControllerObserved(ctx, kind, obj, converged)],
    ['children-created', podKinds ? checkChildren(ctx, kind, obj, converged) : noPods],
    ['scheduled', podKinds ? checkScheduled(ctx) : noPods],
    ['containers-started', podKinds ? checkContainers(ctx, kind, obj) : noPods],
    ['status-conditions', checkConditions(ctx, kind, obj)],
  ];
}

export function diagnose(input: DiagnoseInput): Diagnosis {
  const ctx = new Context(input, diagnose);
  const { kind, name } = input.target;
  const label = `${kind}/${name}`;
  const base = { target: { ...input.target }, at: new Date(input.now).toISOString() };
  const obj = input.object;
  if (!obj) return notAccepted(ctx, base);
  const conv = input.readiness.judge(obj, { kind, target: true });
  const converged = settledOrOwned(conv);
  const results = walk(ctx, kind, obj, converged);

  const links: LinkCheck[] = results.map(([link, r]) => ({ link, status: r.status, detail: r.detail }));
  const brokenAt = results.find(([, r]) => r.status === 'broken');
  if (brokenAt) {
    const [link, r] = brokenAt;
    const evidence = [...r.evidence];
    // What the target's own conditions say follows the cause (a deadline exceeded because of it).
    if (link !== 'status-conditions') {
      for (const e of terminalConditions(ctx, kind, obj))
        if (!evidence.some((x) => x.object.name === e.object.name && x.type === e.type && x.reason === e.reason)) evidence.push(e);
    }
    return { ...base, verdict: 'broken', link, summary: `${label}: ${r.detail}`, evidence, next: [...new Set(r.next)], unseen: ctx.unseen, links };
  }
  const unknownAt = results.find(([, r]) => r.status === 'unknown');
  if (unknownAt || ctx.unseen.length > 0) {
    const [link, r] = unknownAt ?? [null, undefined];
    const what = ctx.unseen.map((u) => u.what).join(', ');
    return {
      ...base,
      verdict: 'unknown',
      link,
      summary: `${label}: could not tell${r ? ` — ${r.detail}` : ''}${what ? `; not seen: ${what}` : ''}`,
      evidence: r?.evidence ?? [],
      next: r?.next ?? [],
      unseen: ctx.unseen,
      links,
    };
  }
  const progressing = results.find(([, r]) => r.status === 'progressing');
  const summary = converged
    ? `${label}: healthy — converged: ${describeVerdict(conv)}`
    : progressing
      ? `${label}: healthy so far — in progress: ${progressing[1].detail}`
      : `${label}: healthy — ${describeVerdict(conv)}`;
  return { ...base, verdict: 'healthy', link: null, summary, evidence: [], next: [], unseen: [], links };
}
