/**
 * The reconcile chain as a sequence of hops. Each reconcile hands the tracker what the cache holds
 * now for the target and its descendants; the tracker compares every object's facts with what it
 * saw before and turns each new fact into a hop, timed by when our informer received the object
 * version that shows it. Pure logic: no I/O, no clock of its own.
 */
import type { KubeObject } from '../kube/index.js';
import { convergence, factsOf, hopEventReasons, type Facts } from './facts.js';
import type { Hop, ObjectRef, TraceEventRef, TraceTrigger } from './types.js';

export interface TrackedObject {
  ref: ObjectRef;
  owner?: ObjectRef | undefined;
  obj: KubeObject;
  /** When our informer received this version (our clock, ms). */
  observedAt: number;
  /** When our informer first received the object at all. */
  firstObservedAt?: number | undefined;
}

export interface Deletion {
  at: number;
  /** Learnt from a relist (DeletedFinalStateUnknown) rather than a DELETED event. */
  tombstone: boolean;
  /** The last state the informer handed to OnDelete (stale, or absent, for a tombstone). */
  finalState?: KubeObject | undefined;
}

export interface ReconcileView {
  target: TrackedObject | undefined;
  descendants: TrackedObject[];
  /** Deletions the handlers saw, by uid. */
  deletions: Map<string, Deletion>;
  /** When the target version our write produced reached our informer, if it has. */
  triggerSeenAt: number | undefined;
}

interface Known {
  ref: ObjectRef;
  owner: ObjectRef | undefined;
  facts: Facts;
  gone: boolean;
}

export function refOf(kind: string, obj: KubeObject): ObjectRef {
  return { kind, namespace: obj.metadata.namespace, name: obj.metadata.name ?? '', uid: obj.metadata.uid ?? '' };
}

export function describeRef(r: ObjectRef): string {
  return `${r.kind}/${r.name}`;
}

export class ChainTracker {
  private readonly known = new Map<string, Known>();
  private readonly list: Hop[] = [];
  private readonly byId = new Map<string, Hop>();
  private readonly events: { regardingUid: string; event: TraceEventRef; at: number }[] = [];
  private trigger: TraceTrigger | undefined;
  private baselineGeneration: number | undefined;
  private baselineSpec: string | undefined;
  private currentTarget: KubeObject | undefined;
  private convergedHop: Hop | undefined;
  private targetDeleted = false;

  constructor(readonly targetKind: string) {}

  /** What exists before the trigger: remembered, never reported as hops. */
  baseline(view: ReconcileView): void {
    for (const o of [...(view.target ? [view.target] : []), ...view.descendants]) {
      this.known.set(o.ref.uid, { ref: o.ref, owner: o.owner, facts: factsOf(o.ref.kind, o.obj), gone: false });
    }
    this.baselineGeneration = view.target?.obj.metadata.generation;
    this.baselineSpec = specOf(view.target?.obj);
    this.currentTarget = view.target?.obj;
  }

  setTrigger(trigger: TraceTrigger): void {
    this.trigger = trigger;
  }

  getTrigger(): TraceTrigger | undefined {
    return this.trigger;
  }

  hops(): Hop[] {
    return this.list;
  }

  /** True when the generation moved since the baseline: the controller has a new spec to observe. */
  specChanged(): boolean {
    const g = this.currentTarget?.metadata.generation ?? this.trigger?.generation;
    return g !== undefined && this.baselineGeneration !== undefined && g > this.baselineGeneration;
  }

  /**
   * True when the change gives the controller work on its children: the spec itself changed (pod
   * template, replicas, suspend, ...). A Deployment's generation also moves on annotation-only
   * changes, which its controller merely copies to the ReplicaSets: no rollout follows those.
   */
  expectsRollout(): boolean {
    return this.specChanged() && specOf(this.currentTarget) !== this.baselineSpec;
  }

  converged(): Hop | undefined {
    return this.convergedHop;
  }

  isTargetDeleted(): boolean {
    return this.targetDeleted;
  }

  /** Compares the cache with what was seen before; returns the new hops in causal order. */
  reconcile(view: ReconcileView, reconciledAt: number): Hop[] {
    const trigger = this.trigger;
    const fresh: Hop[] = [];
    // Before the trigger nothing is reported; the baseline stays what it was when it was taken,
    // so that a write's own effects are never folded into it.
    if (!trigger) return fresh;
    const add = (o: { ref: ObjectRef; owner?: ObjectRef | undefined }, kind: string, observedAt: number, extra: Partial<Hop> = {}, key = kind): void => {
      const id = `${key}/${o.ref.uid}`;
      if (this.byId.has(id)) return;
      const hop: Hop = {
        id,
        kind,
        object: o.ref,
        owner: o.owner,
        observedAt,
        reconciledAt,
        sinceTriggerMs: observedAt - trigger.at,
        sincePreviousMs: observedAt - trigger.at,
        events: [],
        ...extra,
      };
      const prev = this.previousOf(hop);
      if (prev) {
        hop.previousId = prev.id;
        hop.sincePreviousMs = observedAt - prev.observedAt;
      }
      this.byId.set(id, hop);
      this.list.push(hop);
      fresh.push(hop);
      this.attachPendingEvents(hop);
    };

    if (view.target) this.currentTarget = view.target.obj;
    if (view.target && view.triggerSeenAt !== undefined && trigger.kind !== 'watch') {
      add(view.target, 'target-modified', view.triggerSeenAt, { detail: `resourceVersion ${trigger.resourceVersion ?? ''}` });
    }

    const present = new Set<string>();
    const objects = [...(view.target ? [view.target] : []), ...view.descendants].sort((a, b) => a.observedAt - b.observedAt);
    for (const o of objects) {
      present.add(o.ref.uid);
      const facts = factsOf(o.ref.kind, o.obj);
      const before = this.known.get(o.ref.uid);
      const isTarget = o === view.target;
      if (!before) {
        const replicas = facts.get('replicas');
        const created = facts.get('created');
        add(o, 'created', o.firstObservedAt ?? o.observedAt, {
          serverTime: created?.serverTime,
          serverTimeSource: created?.serverTimeSource,
          ...(replicas ? { detail: `${replicas.value} replicas` } : {}),
        });
      }
      for (const [name, fact] of facts) {
        const prev = before?.facts.get(name);
        if (name === 'created') continue;
        if (name === 'generation') {
          if (prev && prev.value !== fact.value && isTarget && trigger.kind === 'watch') add(o, 'spec-changed', o.observedAt, { detail: `generation ${prev.value}→${fact.value}`, serverTime: fact.serverTime, serverTimeSource: fact.serverTimeSource }, `spec-changed-${fact.value}`);
          continue;
        }
        if (name === 'observed-generation') {
          const gen = o.obj.metadata.generation ?? 0;
          if (isTarget && prev?.value !== fact.value && (fact.value as number) >= gen && this.specChanged()) {
            add(o, 'controller-observed', o.observedAt, { detail: `observedGeneration ${fact.value}`, serverTime: fact.serverTime, serverTimeSource: fact.serverTimeSource }, `controller-observed-${fact.value}`);
          }
          continue;
        }
        if (name === 'replicas') {
          if (prev && prev.value !== fact.value) {
            const down = (fact.value as number) < (prev.value as number);
            add(o, down ? 'scaled-down' : 'scaled', o.observedAt, { detail: `${prev.value}→${fact.value} replicas`, serverTime: fact.serverTime, serverTimeSource: fact.serverTimeSource }, `scaled-${fact.value}`);
          }
          continue;
        }
        if (name.startsWith('finalizer:')) {
          if (!prev && before) add(o, 'finalizer-added', o.observedAt, { detail: fact.detail }, `finalizer-added:${fact.detail}`);
          continue;
        }
        if (!prev) add(o, name, o.observedAt, { serverTime: fact.serverTime, serverTimeSource: fact.serverTimeSource, detail: fact.detail });
      }
      for (const [name, prev] of before?.facts ?? []) {
        if (facts.has(name)) continue;
        if (name.startsWith('finalizer:')) add(o, 'finalizer-removed', o.observedAt, { detail: prev.detail }, `finalizer-removed:${prev.detail}`);
        if (name === 'ready') add(o, 'not-ready', o.observedAt, {}, `not-ready-${o.obj.metadata.resourceVersion}`);
      }
      this.known.set(o.ref.uid, { ref: o.ref, owner: o.owner, facts, gone: false });
    }

    for (const k of this.known.values()) {
      if (k.gone || present.has(k.ref.uid)) continue;
      const d = view.deletions.get(k.ref.uid);
      if (!d) continue;
      // Changes between the last state we reconciled and the final one (removing the last finalizer
      // deletes the object at once) are hops too.
      const last = d.finalState && !d.tombstone ? factsOf(k.ref.kind, d.finalState) : undefined;
      if (last && !k.facts.has('terminating') && last.has('terminating')) {
        const t = last.get('terminating')!;
        add(k, 'terminating', d.at, { serverTime: t.serverTime, serverTimeSource: t.serverTimeSource, detail: t.detail });
      }
      // An object is only deleted once its finalizers are gone. The update that removes the last one
      // deletes it at once, and the DELETED event may carry the state from before that update, so
      // every finalizer we last saw was removed by now.
      for (const [name, prev] of k.facts) {
        if (name.startsWith('finalizer:')) add(k, 'finalizer-removed', d.at, { detail: prev.detail }, `finalizer-removed:${prev.detail}`);
      }
      k.gone = true;
      add(k, 'deleted', d.at, d.tombstone ? { detail: 'learnt at a relist (tombstone: final state unknown)' } : {});
      if (k.ref.kind === this.targetKind && view.target === undefined) this.targetDeleted = true;
    }

    if (view.target && !this.convergedHop && this.expectsRollout()) {
      const c = convergence(this.targetKind, view.target.obj);
      const gen = view.target.obj.metadata.generation ?? 0;
      if (c.done && (trigger.generation === undefined || gen >= trigger.generation) && this.rolloutStarted()) {
        add(view.target, c.failed ? 'failed' : 'converged', view.target.observedAt, { detail: c.detail, serverTime: c.serverTime, serverTimeSource: c.serverTimeSource });
        this.convergedHop = this.byId.get(`${c.failed ? 'failed' : 'converged'}/${view.target.ref.uid}`);
      }
    }
    return fresh.sort((a, b) => a.observedAt - b.observedAt);
  }

  /**
   * A rollout has visibly begun: the controller observed the new generation, or — for kinds whose
   * status has no observedGeneration, such as Jobs — it acted on a child.
   */
  private rolloutStarted(): boolean {
    if (this.list.some((h) => h.kind === 'controller-observed')) return true;
    const status = this.currentTarget?.status as { observedGeneration?: unknown } | undefined;
    return status?.observedGeneration === undefined && this.list.some((h) => h.object.kind !== this.targetKind);
  }

  /**
   * The hop this one follows from. A Pod's lifecycle hops follow its own earlier hops (else its
   * owner's); a controller's hops on a workload (scale up or down, convergence) follow whatever
   * happened last anywhere in the chain, since that is what the controller reacted to.
   */
  private previousOf(hop: Hop): Hop | undefined {
    if (hop.object.kind !== 'Pod') {
      let latest: Hop | undefined;
      for (const h of this.list) if (h.observedAt <= hop.observedAt && (!latest || h.observedAt >= latest.observedAt)) latest = h;
      return latest;
    }
    const before = (uid: string | undefined): Hop | undefined => {
      if (!uid) return undefined;
      let best: Hop | undefined;
      for (const h of this.list) if (h.object.uid === uid && h.observedAt <= hop.observedAt && (!best || h.observedAt >= best.observedAt)) best = h;
      return best;
    };
    const own = before(hop.object.uid);
    if (own) return own;
    let owner = hop.owner;
    while (owner) {
      const h = before(owner.uid);
      if (h) return h;
      owner = this.known.get(owner.uid)?.owner;
    }
    const target = [...this.known.values()].find((k) => k.ref.kind === this.targetKind && !k.owner);
    return target ? before(target.ref.uid) : undefined;
  }

  /** Records an Event; returns the hops it was attached to. */
  addEvent(regardingUid: string, event: TraceEventRef, at: number): string[] {
    this.events.push({ regardingUid, event, at });
    const attached: string[] = [];
    for (const hop of this.list) if (this.matches(hop, regardingUid, event)) {
      hop.events.push(event);
      attached.push(hop.id);
    }
    return attached;
  }

  private attachPendingEvents(hop: Hop): void {
    for (const e of this.events) if (this.matches(hop, e.regardingUid, e.event)) hop.events.push(e.event);
  }

  private matches(hop: Hop, regardingUid: string, event: TraceEventRef): boolean {
    const reasons = hopEventReasons[hop.kind];
    if (!reasons?.includes(event.reason)) return false;
    if (hop.events.some((e) => e === event)) return false;
    // "Scaled up replica set web-abc from 1 to 2": only the hop with that transition.
    const fromTo = /from (\d+) to (\d+)/.exec(event.note);
    if (fromTo && hop.object.kind !== 'Pod') {
      const m = /^(\d+)→(\d+)/.exec(hop.detail ?? '') ?? (hop.kind === 'created' ? /^()(\d+) replicas/.exec(hop.detail ?? '') : null);
      if (!m || (m[1] || '0') !== fromTo[1] || m[2] !== fromTo[2]) return false;
    }
    if (regardingUid === hop.object.uid) return true;
    // Controllers report the objects they create or scale on the owner: match by name in the note.
    return (regardingUid === hop.owner?.uid || hop.kind === 'scaled' || hop.kind === 'scaled-down' || hop.kind === 'created') && new RegExp(`\\b${escapeRegExp(hop.object.name)}\\b`).test(event.note);
  }
}

function specOf(obj: KubeObject | undefined): string | undefined {
  return obj?.spec === undefined ? undefined : JSON.stringify(obj.spec);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
