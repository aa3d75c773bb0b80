/**
 * The reconcile chain as a sequence of hops. Each reconcile hands the tracker what the cache holds
 * now for the target and its descendants (those that may have changed, see Cost); the tracker
 * compares each object's facts with what it saw before and turns each new fact into a hop, timed
 * by when our informer received the object version that shows it. Pure logic: no I/O, no clock of
 * its own.
 *
 * Order: hops are kept in the order our informers received them. Informers deliver independently,
 * so a reconcile can find a hop received before one an earlier reconcile reported: it is inserted
 * at its place in time, not appended. Hops received at the same instant are put cause first (an
 * owner's hop before the creation of its child, an object's lifecycle in its own order). When the
 * receive order contradicts causality — a child seen created before the change of its owner that
 * made it — the child's hop keeps its place in time and says so (`seenBeforeCause`).
 *
 * Cost: a chain can hold thousands of objects and Events. A view hands over the objects that may
 * have changed since the last one (all of them at the baseline and at the trigger), and of those
 * only the ones whose version changed have their facts read; deletions are read once each; Events
 * are found by the object they regard and the names in their note, hops by their object, so a
 * reconcile costs what changed, not what exists.
 */
import type { KubeObject } from '../kube/index.js';
import { describeVerdict, groupKindOf, type Readiness } from '../readiness/index.js';
import { hopEventReasons, isHopFact, writerOf, type Fact, type Facts } from './facts.js';
import { fieldDiff } from './field-diff.js';
import { KeptHopFigures } from './hop-figures.js';
import { factsOf } from './kinds.js';
import { HOP_KINDS, type FieldChange, type Hop, type HopFigures, type HopKind, type ObjectRef, type TraceEventRef, type TraceTrigger } from './types.js';

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
  /** The target's descendants that may have changed since the last view (every one, for a baseline). */
  descendants: TrackedObject[];
  /** Deletions the handlers saw, by uid, in the order seen; entries are added, never removed. */
  deletions: Map<string, Deletion>;
  /** When the target version our write produced reached our informer, if it has. */
  triggerSeenAt: number | undefined;
}

interface Known {
  ref: ObjectRef;
  owner: ObjectRef | undefined;
  facts: Facts;
  gone: boolean;
  /** The version the facts were read from, to tell what the next one changed. */
  obj: KubeObject;
  /** When our informer received that version. */
  at: number;
}

interface Subject {
  ref: ObjectRef;
  owner?: ObjectRef | undefined;
}

interface RecordedEvent {
  /** Order of arrival: Events are attached in it. */
  seq: number;
  regardingUid: string;
  event: TraceEventRef;
  /** The hop it explains: an Event is listed under one hop only (a Pod's SuccessfulDelete under
   *  its terminating hop, not again under its deletion). */
  hop?: Hop | undefined;
}

/** An object's own hops, in the order one version can show them: HOP_KINDS' order. */
const lifecycle: Record<HopKind, number> = Object.fromEntries(HOP_KINDS.map((k, i) => [k, i])) as Record<HopKind, number>;

/** The hops of an owner that make the controller create a child. */
const creationCauses: readonly HopKind[] = ['target-modified', 'spec-changed', 'created', 'scaled'];

export function refOf(kind: string, obj: KubeObject): ObjectRef {
  return { kind, namespace: obj.metadata.namespace, name: obj.metadata.name ?? '', uid: obj.metadata.uid ?? '' };
}

/** What the tracker did, counted: tells whether a reconcile's work follows the change or the chain. */
export interface TrackerWork {
  /** Objects whose facts were read from a version. */
  factReads: number;
  /** Event–hop pairs tested for whether the Event explains the hop. */
  eventMatches: number;
  /** Deletions read from the views. */
  deletionReads: number;
}

export class ChainTracker {
  private readonly known = new Map<string, Known>();
  private readonly list: Hop[] = [];
  /**
   * Each hop's object uid, in the order of `list`: previousOf() searches this flat array instead of
   * following every hop to its object.
   */
  private readonly listUids: string[] = [];
  /** The figures over `list`, kept as hops are placed: see figures(). */
  private readonly kept = new KeptHopFigures();
  private readonly byId = new Map<string, Hop>();
  /** Hops by their object's uid and by its name, in the order recorded. */
  private readonly hopsByUid = new Map<string, Hop[]>();
  private readonly hopsByName = new Map<string, Hop[]>();
  /** Hops whose object's name cannot be told apart in a note by `noteNames`: tested against every Event. */
  private readonly oddlyNamedHops: Hop[] = [];
  /** Every Event seen, by its uid: a later version of an Event updates the one record. */
  private readonly events = new Map<string, RecordedEvent>();
  /** Events not yet attached, by the uid they regard and by each name their note may mention. */
  private readonly eventsByRegarding = new Map<string, RecordedEvent[]>();
  private readonly eventsByName = new Map<string, RecordedEvent[]>();
  private anonymousEvents = 0;
  private eventSeq = 0;
  private readonly counted: TrackerWork = { factReads: 0, eventMatches: 0, deletionReads: 0 };
  /** `mentions`' pattern for each name, compiled once: the same names are looked for again and again. */
  private readonly mentionPatterns = new Map<string, RegExp>();
  /** The uid of the first target seen: the chain's root, once known. */
  private rootUid: string | undefined;
  /** Children's creation hops whose cause has not been seen yet. */
  private awaitingCause: Hop[] = [];
  /** Hops found to precede their cause after they were reported. */
  private lateMarks: Hop[] = [];
  private trigger: TraceTrigger | undefined;
  private baselineGeneration: number | undefined;
  /** The target as it was at the baseline; absent when the change creates it. */
  private baselineTargetUid: string | undefined;
  private baselineSpec: string | undefined;
  private currentTarget: KubeObject | undefined;
  private convergedHop: Hop | undefined;
  private targetDeleted = false;
  /** Why a target whose status has no verdict of its own is not converged yet: the first child not ready. */
  private waitingFor: string | undefined;
  /** Whether the target is paused now, and how many pauses it went through. */
  private suspended = false;
  private suspensions = 0;
  /** The view's deletions last read, and how many of its entries have been read: see unreadDeletions(). */
  private deletionsSource: Map<string, Deletion> | undefined;
  private deletionsRead = 0;
  /** Where the last read of `deletionsSource` stopped: its next entry is the first unread one. */
  private deletionsCursor: MapIterator<[string, Deletion]> | undefined;
  /** The target version whose spec specOfTarget holds. */
  private specSource: KubeObject | undefined;
  private specOfTarget: string | undefined;

  /** `readiness`: the command's engine, which judges the target (its `--ready` too) and the children. */
  constructor(
    readonly targetKind: string,
    private readonly readiness: Readiness,
  ) {}

  /** What exists before the trigger: remembered, never reported as hops. */
  baseline(view: ReconcileView): void {
    // What exists now is all the baseline holds: one taken again (at the trigger) replaces the first.
    this.known.clear();
    for (const o of [...(view.target ? [view.target] : []), ...view.descendants]) {
      this.known.set(o.ref.uid, { ref: o.ref, owner: o.owner, facts: this.factsOf(o.ref.kind, o.obj), gone: false, obj: o.obj, at: o.observedAt });
    }
    // A target that does not exist yet is created by the change: generation 0 and no spec before.
    this.baselineGeneration = view.target ? view.target.obj.metadata.generation : 0;
    this.baselineTargetUid = view.target?.ref.uid;
    this.baselineSpec = specOf(view.target?.obj);
    this.currentTarget = view.target?.obj;
  }

  setTrigger(trigger: TraceTrigger): void {
    this.trigger = trigger;
  }

  /** In the order received; see the module comment. */
  hops(): Hop[] {
    return this.list;
  }

  /**
   * The figures over hops() (its end, slowest hop, widest object and ids), kept up to date as each
   * hop is placed and linked: the same object until the next hop.
   */
  figures(): HopFigures {
    return this.kept.figures();
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
    if (!this.specChanged()) return false;
    // Asked at every reconcile: the spec is serialised once per version of the target.
    if (this.currentTarget !== this.specSource) {
      this.specSource = this.currentTarget;
      this.specOfTarget = specOf(this.currentTarget);
    }
    return this.specOfTarget !== this.baselineSpec;
  }

  converged(): Hop | undefined {
    return this.convergedHop;
  }

  isTargetDeleted(): boolean {
    return this.targetDeleted;
  }

  /** What the tracker has done so far (a copy). */
  work(): TrackerWork {
    return { ...this.counted };
  }

  /** Hops reported earlier that have since been found to precede their cause; each returned once. */
  takeLateCauseMarks(): Hop[] {
    const out = this.lateMarks;
    this.lateMarks = [];
    return out;
  }

  /** Compares the cache with what was seen before; returns the new hops in the order of hops(). */
  reconcile(view: ReconcileView, reconciledAt: number): Hop[] {
    const trigger = this.trigger;
    // Before the trigger nothing is reported; the baseline stays what it was when it was taken,
    // so that a write's own effects are never folded into it.
    if (!trigger) return [];
    const fresh: Hop[] = [];
    // Only objects with a version not reconciled before can show a new fact.
    const changed: TrackedObject[] = [];
    const look = (o: TrackedObject): void => {
      const before = this.known.get(o.ref.uid);
      if (!before || before.gone || !sameVersion(before.obj, o.obj)) changed.push(o);
    };
    if (view.target) look(view.target);
    for (const o of view.descendants) look(o);
    const deleted = this.unreadDeletions(view);
    // What each object's version changed since the one seen before: the hop detail shows it. The
    // pairs are noted before any object's record moves on; each is diffed when its first hop is
    // made (most versions make none), and that one diff goes with all its hops of this reconcile.
    const diffPairs = new Map<string, [KubeObject, KubeObject]>();
    for (const o of changed) {
      const prev = this.known.get(o.ref.uid)?.obj;
      if (prev && prev !== o.obj) diffPairs.set(o.ref.uid, [prev, o.obj]);
    }
    for (const [uid, d] of deleted) {
      const prev = this.known.get(uid);
      if (prev && !prev.gone && d.finalState && !d.tombstone && d.finalState !== prev.obj) diffPairs.set(uid, [prev.obj, d.finalState]);
    }
    const diffs = new Map<string, FieldChange[]>();
    const diffOf = (uid: string): FieldChange[] | undefined => {
      let d = diffs.get(uid);
      if (d === undefined) {
        const pair = diffPairs.get(uid);
        if (!pair) return undefined;
        d = fieldDiff(pair[0], pair[1]);
        diffs.set(uid, d);
      }
      return d;
    };
    const add = (o: Subject, kind: HopKind, observedAt: number, extra: Partial<Hop> = {}, key: string = kind): void => {
      // A hop already recorded is not made again: its diff is not needed either.
      if (this.byId.has(`${key}/${o.ref.uid}`)) return;
      const changes = diffOf(o.ref.uid);
      const obj = (o as { obj?: KubeObject }).obj;
      const writer = obj && kind !== 'deleted' ? writerOf(obj) : undefined;
      const hop = this.record(
        trigger,
        reconciledAt,
        o,
        kind,
        observedAt,
        { ...(changes?.length ? { changes } : {}), ...(writer ? { writer } : {}), ...extra },
        key,
      );
      if (hop) fresh.push(hop);
    };

    if (view.target) this.currentTarget = view.target.obj;
    // Our write reached our informer. A target our write created shows as its `created` hop instead.
    if (view.target && view.triggerSeenAt !== undefined && trigger.kind !== 'watch' && view.target.ref.uid === this.baselineTargetUid) {
      add(view.target, 'target-modified', view.triggerSeenAt, { detail: `resourceVersion ${trigger.resourceVersion ?? ''}` });
    }
    for (const o of changed.sort((a, b) => a.observedAt - b.observedAt)) this.compareObject(o, o === view.target, add);
    this.followDeletions(view, deleted, add);
    this.checkConvergence(view, trigger, add);
    this.markSeenBeforeCause(fresh);
    if (fresh.length < 2) return fresh;
    // New hops sit at the end of the list, or near it: read it backwards until all are found.
    const wanted = new Set(fresh);
    const ordered: Hop[] = [];
    for (let i = this.list.length - 1; i >= 0 && ordered.length < wanted.size; i--) if (wanted.has(this.list[i]!)) ordered.push(this.list[i]!);
    return ordered.reverse();
  }

  /** Makes a hop unless one with the same id exists; places it and attaches the Events known for it. */
  private record(
    trigger: TraceTrigger,
    reconciledAt: number,
    o: Subject,
    kind: HopKind,
    observedAt: number,
    extra: Partial<Hop>,
    key: string,
  ): Hop | undefined {
    const id = `${key}/${o.ref.uid}`;
    if (this.byId.has(id)) return undefined;
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
    this.byId.set(id, hop);
    const at = this.insert(hop);
    pushTo(this.hopsByUid, hop.object.uid, hop);
    if (isPlainName(hop.object.name)) pushTo(this.hopsByName, hop.object.name, hop);
    else this.oddlyNamedHops.push(hop);
    // A hop placed before others may be what they follow from now.
    for (let i = at; i < this.list.length; i++) this.link(i, trigger);
    this.kept.placed(this.list, at);
    for (const e of this.eventsFor(hop)) this.attach(hop, e);
    return hop;
  }

  /**
   * The unattached Events that may explain the hop, in the order they arrived: those regarding its
   * object and those whose note may name it (an Event explains a hop of another object only by
   * naming it). Attached ones are dropped from the index on the way.
   */
  private eventsFor(hop: Hop): RecordedEvent[] {
    const unattached = (index: Map<string, RecordedEvent[]>, key: string): RecordedEvent[] => {
      const all = index.get(key);
      if (!all) return [];
      const left = all.filter((e) => !e.hop);
      if (left.length === 0) index.delete(key);
      else if (left.length < all.length) index.set(key, left);
      return left;
    };
    const byName = isPlainName(hop.object.name) ? unattached(this.eventsByName, hop.object.name) : [...this.events.values()].filter((e) => !e.hop);
    const byUid = unattached(this.eventsByRegarding, hop.object.uid);
    if (byUid.length === 0) return byName;
    if (byName.length === 0) return byUid;
    return [...new Set([...byUid, ...byName])].sort((a, b) => a.seq - b.seq);
  }

  /** The first hop, in the order of hops(), among `candidates`. */
  private firstListed(candidates: Hop[]): Hop | undefined {
    if (candidates.length < 2) return candidates[0];
    const set = new Set(candidates);
    return this.list.find((h) => set.has(h));
  }

  /** The facts of an object of `kind`, its group as its apiVersion says (a custom resource named `Job` has no Job facts). */
  private factsOf(kind: string, obj: KubeObject): Facts {
    this.counted.factReads++;
    return factsOf(groupKindOf(obj, { kind }), obj);
  }

  private link(index: number, trigger: TraceTrigger): void {
    const hop = this.list[index]!;
    const prev = this.previousOf(hop, index);
    hop.previousId = prev?.id;
    hop.sincePreviousMs = hop.observedAt - (prev?.observedAt ?? trigger.at);
  }

  /** One object's new facts (and facts it lost) since the last reconcile. */
  private compareObject(o: TrackedObject, isTarget: boolean, add: (o: Subject, kind: HopKind, at: number, extra?: Partial<Hop>, key?: string) => void): void {
    const facts = this.factsOf(o.ref.kind, o.obj);
    const before = this.known.get(o.ref.uid);
    if (!before) {
      const replicas = facts.get('replicas');
      const created = facts.get('created');
      add(o, 'created', o.firstObservedAt ?? o.observedAt, {
        serverTime: created?.serverTime,
        serverTimeSource: created?.serverTimeSource,
        ...(replicas ? { detail: `${replicas.value} replicas` } : {}),
      });
    }
    for (const [name, fact] of facts) this.factChanged(o, isTarget, name, fact, before?.facts.get(name), before !== undefined, add);
    for (const [name, prev] of before?.facts ?? []) {
      if (facts.has(name)) continue;
      if (name.startsWith('finalizer:')) add(o, 'finalizer-removed', o.observedAt, { detail: prev.detail }, `finalizer-removed:${prev.detail}`);
      if (name === 'ready') add(o, 'not-ready', o.observedAt, {}, `not-ready-${o.obj.metadata.resourceVersion}`);
    }
    this.known.set(o.ref.uid, { ref: o.ref, owner: o.owner, facts, gone: false, obj: o.obj, at: o.observedAt });
  }

  /** The hop, if any, that one fact of an object makes given its previous value. */
  private factChanged(
    o: TrackedObject,
    isTarget: boolean,
    name: string,
    fact: Fact,
    prev: Fact | undefined,
    knownBefore: boolean,
    add: (o: Subject, kind: HopKind, at: number, extra?: Partial<Hop>, key?: string) => void,
  ): void {
    const server = { serverTime: fact.serverTime, serverTimeSource: fact.serverTimeSource };
    if (name === 'created') return;
    if (name === 'generation') {
      if (prev && prev.value !== fact.value && isTarget && this.trigger?.kind === 'watch')
        add(o, 'spec-changed', o.observedAt, { detail: `generation ${prev.value}→${fact.value}`, ...server }, `spec-changed-${fact.value}`);
      return;
    }
    if (name === 'observed-generation') {
      const gen = o.obj.metadata.generation ?? 0;
      if (isTarget && prev?.value !== fact.value && (fact.value as number) >= gen && this.specChanged()) {
        add(o, 'controller-observed', o.observedAt, { detail: `observedGeneration ${fact.value}`, ...server }, `controller-observed-${fact.value}`);
      }
      return;
    }
    if (name === 'replicas') {
      if (prev && prev.value !== fact.value) {
        const down = (fact.value as number) < (prev.value as number);
        add(o, down ? 'scaled-down' : 'scaled', o.observedAt, { detail: `${prev.value}→${fact.value} replicas`, ...server }, `scaled-${fact.value}`);
      }
      return;
    }
    if (name.startsWith('finalizer:')) {
      if (!prev && knownBefore) add(o, 'finalizer-added', o.observedAt, { detail: fact.detail }, `finalizer-added:${fact.detail}`);
      return;
    }
    if (name.startsWith('condition:') || name.startsWith('status.')) {
      // A custom resource's status moving: each transition is a hop, with the server's time.
      if (prev?.value === fact.value) return;
      const what = name.startsWith('condition:') ? name.slice('condition:'.length) : name;
      const detail = `${what} ${prev ? `${prev.value}→` : ''}${fact.value}${fact.detail ? `  ${fact.detail}` : ''}`;
      add(
        o,
        name.startsWith('condition:') ? 'condition' : 'status',
        o.observedAt,
        { ...server, detail },
        `${name}=${fact.value}@${o.obj.metadata.resourceVersion ?? ''}`,
      );
      return;
    }
    if (!prev && isHopFact(name)) add(o, name, o.observedAt, { ...server, detail: fact.detail });
  }

  /**
   * The deletions a reconcile has not read yet. The view's map only grows (a uid is never reused,
   * so a deletion is final): each entry is read by one reconcile, and the next starts after it. A
   * different map (a view built afresh) is read from its start.
   */
  private unreadDeletions(view: ReconcileView): [string, Deletion][] {
    if (view.deletions !== this.deletionsSource || !this.deletionsCursor) {
      this.deletionsSource = view.deletions;
      this.deletionsRead = 0;
      this.deletionsCursor = view.deletions.entries();
    }
    // A Map's iterator goes on to entries added after it was made, as long as it has not been
    // run to its end: it is only advanced while entries are left, so each reconcile walks only
    // the deletions new since the last one, not all of them again.
    const out: [string, Deletion][] = [];
    while (this.deletionsRead < view.deletions.size) {
      const next = this.deletionsCursor.next();
      if (next.done) break;
      out.push(next.value);
      this.deletionsRead++;
    }
    this.counted.deletionReads += out.length;
    return out;
  }

  /** Objects that left the cache: what changed in their final state, then their deletion. */
  private followDeletions(
    view: ReconcileView,
    deleted: [string, Deletion][],
    add: (o: Subject, kind: HopKind, at: number, extra?: Partial<Hop>, key?: string) => void,
  ): void {
    for (const [uid, d] of deleted) {
      const k = this.known.get(uid);
      // Objects never seen in the chain (created and deleted between two reconciles, or outside it).
      if (!k || k.gone) continue;
      // Changes between the last state we reconciled and the final one (removing the last finalizer
      // deletes the object at once) are hops too.
      const last = d.finalState && !d.tombstone ? this.factsOf(k.ref.kind, d.finalState) : undefined;
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
  }

  /** The target's status says the rollout of the traced generation finished (or failed). */
  private checkConvergence(
    view: ReconcileView,
    trigger: TraceTrigger,
    add: (o: Subject, kind: HopKind, at: number, extra?: Partial<Hop>, key?: string) => void,
  ): void {
    if (!view.target || this.convergedHop || !this.expectsRollout()) return;
    const v = this.readiness.judge(view.target.obj, { target: true, kind: this.targetKind });
    const gen = view.target.obj.metadata.generation ?? 0;
    if ((trigger.generation !== undefined && gen < trigger.generation) || !this.rolloutStarted()) return;
    if (v.status === 'Suspended') {
      // A pause (a step's timer, a user) is a hop of its own; the trace goes on through it.
      if (!this.suspended) add(view.target, 'suspended', view.target.observedAt, { detail: describeVerdict(v) }, `suspended:${++this.suspensions}`);
      this.suspended = true;
      return;
    }
    this.suspended = false;
    const settled = v.status === 'Current' || v.status === 'Failed' || (v.status === 'Unknown' && v.childrenDecide === true);
    if (!settled) return;
    let detail = describeVerdict(v);
    let at = view.target.observedAt;
    if (v.childrenDecide) {
      // The status has no verdict of its own: the children it owns must be ready too.
      const children = [...this.known.values()].filter((k) => !k.gone && k.ref.uid !== view.target!.ref.uid);
      this.waitingFor = children.map((k) => this.readiness.childNotReady(k.obj, { kind: k.ref.kind })).find((w) => w !== undefined);
      if (this.waitingFor) return;
      if (children.length > 0) detail += `; its ${children.length} ${children.length === 1 ? 'child is' : 'children are'} ready`;
      // Decided when the last of them became ready.
      for (const k of children) at = Math.max(at, k.at);
    }
    const kind = v.status === 'Failed' ? 'failed' : 'converged';
    add(view.target, kind, at, { detail, serverTime: v.serverTime, serverTimeSource: v.serverTimeSource });
    this.convergedHop = this.byId.get(`${kind}/${view.target.ref.uid}`);
  }

  /**
   * A rollout has visibly begun: the controller observed the new generation, or — for kinds whose
   * status has no observedGeneration, such as Jobs — it acted on a child, or it wrote the status of
   * a target the change created.
   */
  private rolloutStarted(): boolean {
    if (this.list.some((h) => h.kind === 'controller-observed')) return true;
    const status = this.currentTarget?.status as Record<string, unknown> | undefined;
    if (status?.observedGeneration === undefined && this.list.some((h) => h.object.kind !== this.targetKind)) return true;
    // A target the change created: any status on it is its controller's answer to the change (an
    // operator that refuses a spec may write only that, with no observedGeneration and no children).
    const created = this.currentTarget !== undefined && this.currentTarget.metadata.uid !== this.baselineTargetUid;
    return created && status !== undefined && Object.keys(status).length > 0;
  }

  /** Puts the hop after everything received before it, and after what caused it in the same instant; returns where. */
  private insert(hop: Hop): number {
    let i = this.list.length;
    while (i > 0 && this.goesAfter(this.list[i - 1]!, hop)) i--;
    this.list.splice(i, 0, hop);
    this.listUids.splice(i, 0, hop.object.uid);
    return i;
  }

  /** Whether `h`, already listed, belongs after the new hop `hop`. */
  private goesAfter(h: Hop, hop: Hop): boolean {
    if (h.observedAt !== hop.observedAt) return h.observedAt > hop.observedAt;
    if (h.object.uid === hop.object.uid) return lifecycle[h.kind] > lifecycle[hop.kind];
    // An owner's change that makes the controller create children comes before the children's hops.
    return creationCauses.includes(hop.kind) && this.isAncestor(hop.object.uid, h.object);
  }

  private isAncestor(uid: string, of: ObjectRef): boolean {
    for (let owner = this.known.get(of.uid)?.owner; owner; owner = this.known.get(owner.uid)?.owner) if (owner.uid === uid) return true;
    return false;
  }

  /**
   * A child's creation is caused by its owner's change: the target's spec change (or our write), a
   * ReplicaSet's creation or scale-up. The first such hop of the owner is the cause; a child
   * received before it is marked, now or when the cause arrives.
   */
  private markSeenBeforeCause(fresh: Hop[]): void {
    for (const h of fresh) if (h.kind === 'created' && h.owner) this.awaitingCause.push(h);
    this.awaitingCause = this.awaitingCause.filter((h) => {
      const cause = this.firstListed((this.hopsByUid.get(h.owner?.uid ?? '') ?? []).filter((c) => creationCauses.includes(c.kind)));
      if (!cause) return true;
      if (cause.observedAt > h.observedAt) {
        h.seenBeforeCause = true;
        if (!fresh.includes(h)) this.lateMarks.push(h);
      }
      return false;
    });
  }

  /**
   * The hop the one at `index` follows from, among those listed before it. A Pod's lifecycle hops
   * follow its own earlier hops (else its owner's); a controller's hops on a workload (scale up or
   * down, convergence) follow whatever happened last anywhere in the chain, since that is what the
   * controller reacted to.
   */
  private previousOf(hop: Hop, index: number): Hop | undefined {
    if (hop.object.kind !== 'Pod') return this.list[index - 1];
    const before = (uid: string | undefined): Hop | undefined => {
      if (!uid || index === 0) return undefined;
      // A new Pod has no hop but this one: nothing to scan the list for.
      const hops = this.hopsByUid.get(uid);
      if (!hops || (hops.length === 1 && hops[0] === hop)) return undefined;
      const i = this.listUids.lastIndexOf(uid, index - 1);
      return i >= 0 ? this.list[i] : undefined;
    };
    const own = before(hop.object.uid);
    if (own) return own;
    let owner = hop.owner;
    while (owner) {
      const h = before(owner.uid);
      if (h) return h;
      owner = this.known.get(owner.uid)?.owner;
    }
    // The first target known stays the first: looked for until found, then remembered.
    this.rootUid ??= [...this.known.values()].find((k) => k.ref.kind === this.targetKind && !k.owner)?.ref.uid;
    return before(this.rootUid);
  }

  /**
   * Records an Event; returns the hop it was attached to, if it was just now. An Event is one record
   * by its uid: a later version (a series counting up) updates that record's count and time in
   * place, so it is listed once however often it recurs.
   */
  addEvent(regardingUid: string, event: TraceEventRef): string | undefined {
    const key = event.uid ?? `anonymous-${++this.anonymousEvents}`;
    const known = this.events.get(key);
    let recorded: RecordedEvent;
    if (known) {
      known.event.time = event.time;
      if (event.count !== undefined) known.event.count = event.count;
      recorded = known;
    } else {
      recorded = { seq: ++this.eventSeq, regardingUid, event };
      this.events.set(key, recorded);
      pushTo(this.eventsByRegarding, regardingUid, recorded);
      for (const name of noteNames(event.note)) pushTo(this.eventsByName, name, recorded);
    }
    if (recorded.hop) return undefined;
    // The hops it may explain: its object's, and those of the objects its note may name.
    const candidates = new Set(this.hopsByUid.get(regardingUid) ?? []);
    for (const name of noteNames(event.note)) for (const h of this.hopsByName.get(name) ?? []) candidates.add(h);
    for (const h of this.oddlyNamedHops) candidates.add(h);
    const hop = this.firstListed([...candidates].filter((h) => this.explains(h, regardingUid, event)));
    if (!hop) return undefined;
    this.attach(hop, recorded);
    return hop.id;
  }

  /** Attaches an Event to a hop it explains; false when it does not, or already explains one. */
  private attach(hop: Hop, recorded: RecordedEvent): boolean {
    if (recorded.hop || !this.explains(hop, recorded.regardingUid, recorded.event)) return false;
    hop.events.push(recorded.event);
    recorded.hop = hop;
    return true;
  }

  private explains(hop: Hop, regardingUid: string, event: TraceEventRef): boolean {
    this.counted.eventMatches++;
    const reasons = hopEventReasons[hop.kind];
    if (!reasons?.includes(event.reason)) return false;
    // "Scaled up replica set web-abc from 1 to 2": only the hop with that transition.
    const fromTo = /from (\d+) to (\d+)/.exec(event.note);
    if (fromTo && hop.object.kind !== 'Pod') {
      const m = /^(\d+)→(\d+)/.exec(hop.detail ?? '') ?? (hop.kind === 'created' ? /^()(\d+) replicas/.exec(hop.detail ?? '') : null);
      if (!m || (m[1] || '0') !== fromTo[1] || m[2] !== fromTo[2]) return false;
    }
    // Controllers report the objects they create or scale on the owner, naming the object in the
    // note: a creation is only explained by an Event that names the created object, never by one
    // about the object itself (a ReplicaSet's "Created pod: web-abc-x" explains the Pod's creation).
    const named = mentions(event.note, hop.object.name, this.mentionPatterns);
    if (hop.kind === 'created') return named;
    if (regardingUid === hop.object.uid) return true;
    return (regardingUid === hop.owner?.uid || hop.kind === 'scaled' || hop.kind === 'scaled-down') && named;
  }
}

/** `name` appears in `text` as a whole object name: "web-abc" is not in "Created pod: web-abc-x1". */
function mentions(text: string, name: string, patterns: Map<string, RegExp>): boolean {
  if (name === '') return false;
  let re = patterns.get(name);
  if (!re) {
    // A name may hold dots, and a sentence may end right after one.
    re = new RegExp(`(?<![-.\\w])${escapeRegExp(name)}(?![-\\w]|\\.[-\\w])`);
    patterns.set(name, re);
  }
  return re.test(text);
}

/** Characters of a name `mentions` can find: it tells names apart by them. */
const NAME_RUN = /[-.\w]+/g;

function isPlainName(name: string): boolean {
  return /^[-.\w]+$/.test(name);
}

/**
 * Every name made of NAME_RUN characters that `mentions` could find in `text`: a whole run of such
 * characters, or a part of one from its start up to a dot (a sentence may end there). A superset:
 * `mentions` still decides.
 */
function noteNames(text: string): Set<string> {
  const out = new Set<string>();
  for (const [run] of text.matchAll(NAME_RUN)) {
    out.add(run);
    for (let i = run.indexOf('.'); i > 0; i = run.indexOf('.', i + 1)) out.add(run.slice(0, i));
  }
  return out;
}

function pushTo<T>(index: Map<string, T[]>, key: string, value: T): void {
  const list = index.get(key);
  if (list) list.push(value);
  else index.set(key, [value]);
}

/**
 * Whether two cached versions of an object are the same: the one object, or the same
 * resourceVersion (a relist hands over equal copies).
 */
function sameVersion(a: KubeObject, b: KubeObject): boolean {
  if (a === b) return true;
  const rv = a.metadata.resourceVersion;
  return rv !== undefined && rv !== '' && rv === b.metadata.resourceVersion;
}

function specOf(obj: KubeObject | undefined): string | undefined {
  return obj?.spec === undefined ? undefined : JSON.stringify(obj.spec);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
