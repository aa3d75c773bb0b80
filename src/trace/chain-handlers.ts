/**
 * The trace's handlers on its chain's informers, and what they note: when our informer received
 * each object and each version of the target, the deletions, the target's watch events. They only
 * note and queue the target's key; the worker reads the cache (client-go's rule).
 *
 * Contract:
 * - A shared informer (a pool's) tells every trace of every object of its kind: each trace's
 *   handlers keep to its own target and chain.
 * - Each object's first receipt, each target version's and each deletion are noted once, at the
 *   clock time our informer received them, never later.
 * - The target's versions are also told to the watch trigger, so a watched change is timed by its
 *   receipt.
 * - detach() takes the handlers away; the informers, which may be shared, run on.
 */
import type { Clock } from '../clock.js';
import { isDeletedFinalStateUnknown, type ResourceEventHandlerRegistration } from '../informer/index.js';
import type { KubeObject } from '../kube/index.js';
import type { ChainInformers, ChildInformer } from './chain-informers.js';
import { refOf, type Deletion, type TrackedObject } from './chain-tracker.js';
import type { ChainView } from './chain-view.js';
import { receivedAt } from './received-at.js';
import type { EventRegarding } from './events-reader.js';
import type { ObjectRef, TraceTarget } from './types.js';
import type { WatchTrigger } from './watch-trigger.js';

type Received = KubeObject | { key: string; obj?: KubeObject | null };

export interface ChainHandlersOptions {
  clock: Clock;
  informers: ChainInformers;
  /** The chain as the view keeps it: told of each child object the handlers receive. */
  chain: () => ChainView;
  target: TraceTarget;
  /** The informers are shared with other traces (an informer pool's). */
  shared: boolean;
  watch: WatchTrigger;
  /** Queues the reconcile of the target's chain. */
  enqueue: () => void;
}

export class ChainHandlers {
  /** Deletions the handlers saw, by uid, in the order seen; entries are added, never removed. */
  readonly deletions = new Map<string, Deletion>();
  /** The target's resourceVersions → when our informer received each. */
  private readonly targetVersions = new Map<string, number>();
  /** uid → when our informer first received the object (the ADDED event). */
  private readonly firstSeen = new Map<string, number>();
  /** The handlers this trace added: taken away by detach(), from informers that may outlive it. */
  private readonly registrations: ResourceEventHandlerRegistration[] = [];
  private watchEvents = 0;

  constructor(private readonly options: ChainHandlersOptions) {}

  /** Watch events for the target our informer received (resyncs not counted). */
  get targetWatchEvents(): number {
    return this.watchEvents;
  }

  /** When our informer received the target's version `rv`, if it has. */
  versionReceivedAt(rv: string): number | undefined {
    return this.targetVersions.get(rv);
  }

  /** The tracker's record of a cached object: when our informer received this version, and the object first. */
  track(kind: string, obj: KubeObject, owner?: ObjectRef): TrackedObject {
    return {
      ref: refOf(kind, obj),
      owner,
      obj,
      observedAt: receivedAt(obj) ?? this.options.clock.now(),
      firstObservedAt: obj.metadata.uid ? this.firstSeen.get(obj.metadata.uid) : undefined,
    };
  }

  /** Whether `obj` is the target: the target's informer holds only it, unless it is shared. */
  private isTarget(obj: Received): boolean {
    if (!this.options.shared) return true;
    const o = isDeletedFinalStateUnknown(obj) ? obj.obj : (obj as KubeObject);
    return o?.metadata?.name === this.options.target.name;
  }

  handleTarget(): void {
    const { watch, enqueue } = this.options;
    const reg = this.options.informers.target.addEventHandler(
      {
        onAdd: (obj, _initial, n) => {
          if (!this.isTarget(obj)) return;
          this.firstReceived(obj, n.receivedAt);
          this.versionReceived(obj, n.receivedAt);
          // Watching for a target that did not exist: its creation is the change being traced.
          watch.received(obj, n.receivedAt);
          enqueue();
        },
        onUpdate: (_old, obj, n) => {
          if (!this.isTarget(obj)) return;
          if (!n.isSync) {
            this.watchEvents++;
            this.versionReceived(obj, n.receivedAt);
            // Watching: the first version after the baseline is the change being traced.
            watch.received(obj, n.receivedAt);
          }
          enqueue();
        },
        onDelete: (obj, n) => {
          if (this.isTarget(obj)) this.deleted(obj, n.receivedAt);
        },
      },
      { name: 'trace' },
    );
    this.registrations.push(reg);
  }

  handleChildren(children: ChildInformer[] = this.options.informers.children): void {
    const { enqueue } = this.options;
    const chain = this.options.chain();
    // A shared informer tells every trace of every object of its kind: each keeps to its own chain.
    const concerns = (obj: Received): boolean => !this.options.shared || chain.concerns(obj);
    for (const child of children) {
      const reg = child.informer.addEventHandler(
        {
          onAdd: (obj, _initial, n) => {
            if (!concerns(obj)) return;
            this.firstReceived(obj, n.receivedAt);
            chain.touch(child, obj);
            enqueue();
          },
          onUpdate: (_o, obj, n) => {
            if (!concerns(obj)) return;
            chain.touch(child, obj);
            if (!n.isSync) enqueue();
          },
          onDelete: (obj, n) => {
            if (!concerns(obj)) return;
            chain.touch(child, obj);
            this.deleted(obj, n.receivedAt);
          },
        },
        { name: 'trace' },
      );
      this.registrations.push(reg);
    }
  }

  /**
   * Whether an Event may be about this trace's chain (a shared Events informer holds the whole
   * namespace's): about the target (whose uid is `targetUid`) or a member, or about an object in a
   * child informer's cache that the chain owns; kept too when its object is not in the cache yet.
   */
  concernsEvent(r: EventRegarding, targetUid: string | undefined): boolean {
    const { informers, target } = this.options;
    const chain = this.options.chain();
    if (!r.uid) return true;
    if (r.uid === targetUid || this.deletions.has(r.uid) || chain.has(r.uid)) return true;
    if (r.kind === target.info.kind && r.name === target.name) return true;
    const child = informers.children.find((c) => c.info.kind === r.kind);
    if (!child) return false;
    const obj = child.informer.getIndexer().getByKey(r.namespace ? `${r.namespace}/${r.name}` : (r.name ?? '')) as KubeObject | undefined;
    return !obj || obj.metadata.uid !== r.uid || chain.concerns(obj);
  }

  /** Takes the handlers away from the informers (shared ones outlive the trace). */
  detach(): void {
    for (const reg of this.registrations.splice(0)) void reg.remove();
  }

  private firstReceived(obj: KubeObject, at: number): void {
    const uid = obj.metadata.uid;
    if (uid && !this.firstSeen.has(uid)) this.firstSeen.set(uid, at);
  }

  private versionReceived(obj: KubeObject, at: number): void {
    const rv = obj.metadata.resourceVersion;
    if (rv && !this.targetVersions.has(rv)) this.targetVersions.set(rv, at);
  }

  private deleted(obj: Received, at: number): void {
    const tombstone = isDeletedFinalStateUnknown(obj);
    const o = tombstone ? obj.obj : (obj as KubeObject);
    const uid = o?.metadata?.uid;
    if (uid) this.deletions.set(uid, { at, tombstone, finalState: o ?? undefined });
    this.options.enqueue();
  }
}
