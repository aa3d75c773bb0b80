/**
 * What can be true of an object, read from its cache state: the "facts" whose first appearance after
 * the trigger is a hop. Every object has the facts read here; a built-in kind has its own beside
 * them (kinds.ts names them, and factsOf() there reads an object's); any other kind has the facts
 * its status gives (statusFacts()).
 *
 * A fact has a value (a boolean fact is `true`; a counted fact such as replicas carries its number)
 * and, when the server records it, the server's time for it.
 */
import type { KubeObject } from '../kube/index.js';
import { conditionOf, conditionsOf, generationOf, managedFieldsTime, statusWordsOf } from '../readiness/index.js';
import type { HopKind } from './types.js';

export interface Fact {
  value: string | number | boolean;
  serverTime?: string | undefined;
  serverTimeSource?: string | undefined;
  detail?: string | undefined;
}

export type Facts = Map<string, Fact>;

/**
 * The facts whose first appearance is a hop of the same name. The other facts are compared by the
 * tracker in their own way: `created`, `generation`, `observed-generation`, `replicas`,
 * `finalizer:NAME`, `condition:TYPE` and `status.FIELD`.
 */
export const HOP_FACTS = [
  'terminating',
  'scheduled',
  'initialized',
  'containers-ready',
  'ready',
  'succeeded',
  'failed',
  'complete',
  'job-failed',
] as const satisfies readonly HopKind[];
export type HopFact = (typeof HOP_FACTS)[number];

export function isHopFact(name: string): name is HopFact {
  return (HOP_FACTS as readonly string[]).includes(name);
}

/** The manager (and subresource) of an object's newest managedFields write: who wrote this version. */
export function writerOf(obj: KubeObject): string | undefined {
  let best: { manager?: string; subresource?: string; time?: string } | undefined;
  for (const m of obj.metadata.managedFields ?? []) if (m.time && m.manager && (!best?.time || m.time >= best.time)) best = m;
  if (!best?.manager) return undefined;
  return best.subresource ? `${best.manager} (${best.subresource})` : best.manager;
}

/** The facts every object has: its creation, deletion, finalizers, generation and observedGeneration. */
export function objectFacts(obj: KubeObject): Facts {
  const facts: Facts = new Map();
  facts.set('created', { value: true, serverTime: obj.metadata.creationTimestamp, serverTimeSource: 'creationTimestamp' });
  if (obj.metadata.deletionTimestamp) {
    // deletionTimestamp is when the grace period ends; the request was that much earlier.
    const grace = obj.metadata.deletionGracePeriodSeconds ?? 0;
    const requested = new Date(Date.parse(obj.metadata.deletionTimestamp) - grace * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
    facts.set('terminating', {
      value: true,
      serverTime: requested,
      serverTimeSource: grace ? `deletionTimestamp − ${grace}s grace` : 'deletionTimestamp',
      detail: grace ? `grace period ${grace}s` : undefined,
    });
  }
  for (const f of obj.metadata.finalizers ?? []) facts.set(`finalizer:${f}`, { value: true, detail: f });
  if (typeof obj.metadata.generation === 'number') {
    facts.set('generation', { value: obj.metadata.generation, serverTime: managedFieldsTime(obj, { subresource: '' }), serverTimeSource: 'managedFields' });
  }
  const observed = generationOf((obj.status as { observedGeneration?: unknown } | undefined)?.observedGeneration);
  if (observed !== undefined) {
    facts.set('observed-generation', { value: observed, serverTime: managedFieldsTime(obj, { subresource: 'status' }), serverTimeSource: 'managedFields' });
  }
  return facts;
}

/** The hop fact `name` while condition `type` is True, timed by its lastTransitionTime. */
export function conditionFact(obj: KubeObject, facts: Facts, type: string, name: HopFact, detail?: string): void {
  const c = conditionOf(obj, type);
  if (c?.status === 'True') facts.set(name, { value: true, serverTime: c.lastTransitionTime, serverTimeSource: `${type} lastTransitionTime`, detail });
}

/**
 * The status of a kind the tool does not know, as facts whose changes are hops: each condition
 * (`condition:TYPE`, its status as value, reason and message as detail), `status.phase`,
 * `status.state` and the status's other words of that kind (`jobDeploymentStatus`).
 */
export function statusFacts(obj: KubeObject, facts: Facts): void {
  for (const c of conditionsOf(obj)) {
    if (typeof c.type !== 'string') continue;
    const said = [c.reason, c.message].filter((x) => typeof x === 'string' && x !== '').join(': ');
    facts.set(`condition:${c.type}`, {
      value: String(c.status),
      serverTime: c.lastTransitionTime,
      serverTimeSource: `${c.type} lastTransitionTime`,
      detail: said || undefined,
    });
  }
  for (const w of statusWordsOf(obj))
    facts.set(`status.${w.field}`, {
      value: w.value,
      serverTime: managedFieldsTime(obj, { subresource: 'status' }),
      serverTimeSource: 'managedFields (status)',
    });
}

/** Event reasons that explain each hop kind (none: no Event is listed under it). */
export const hopEventReasons: Record<HopKind, readonly string[]> = {
  created: ['SuccessfulCreate', 'ScalingReplicaSet', 'SuccessfulCreatePod'],
  terminating: ['SuccessfulDelete', 'Killing'],
  'finalizer-added': [],
  'target-modified': [],
  'spec-changed': [],
  scaled: ['ScalingReplicaSet'],
  'controller-observed': [],
  condition: [],
  status: [],
  scheduled: ['Scheduled'],
  initialized: [],
  'containers-ready': [],
  ready: [],
  'not-ready': [],
  succeeded: [],
  complete: ['Completed'],
  'job-failed': [],
  'scaled-down': ['ScalingReplicaSet'],
  'finalizer-removed': [],
  deleted: ['SuccessfulDelete', 'Killing'],
  suspended: [],
  converged: ['DeploymentRollout', 'SuccessfulUpdate'],
  failed: [],
};
