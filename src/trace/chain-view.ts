/**
 * The chain below the target, kept as the cache changes: what each reconcile hands the tracker.
 *
 * Contract:
 * - full(root) walks the owner index down from the root and hands over every descendant,
 *   breadth first; the members are rebuilt from them.
 * - update(root) reads again only the objects the handlers touched since the last view; the
 *   members kept between views tell whether each still belongs to the chain (an owner in the chain
 *   that can own its kind): an object that joins brings its children in the cache with it, one
 *   that leaves takes its own. Both give the same chain; the incremental one hands over only what
 *   may have changed, which is all the tracker compares. A reconcile during a rollout of thousands
 *   of Pods reads the objects its handlers were told of since the last one, not every object.
 * - needsFull() is true at the start, after markFull() (the trigger) and after a tombstone without
 *   its object; an object with two owners in the chain is in it once, under the first found.
 */
import { deletionHandlingMetaNamespaceKeyFunc, isDeletedFinalStateUnknown } from '../informer/index.js';
import type { GroupKind, KubeObject } from '../kube/index.js';
import type { ChainInformers, ChildInformer } from './chain-informers.js';
import type { TrackedObject } from './chain-tracker.js';
import type { ObjectRef } from './types.js';

/** Makes the tracker's record of one cached object (of `kind`, under `owner` in the chain). */
export type Track = (kind: string, obj: KubeObject, owner?: ObjectRef) => TrackedObject;

export class ChainView {
  /** Each member's uid → what the view handed the tracker for it (with its owner in the chain). */
  private readonly members = new Map<string, TrackedObject>();
  /** Each member's children in the chain. */
  private readonly memberChildren = new Map<string, Set<string>>();
  /** Each member's group and kind, its informer's: what it can own (ChainInformers.ownable()). */
  private readonly memberKinds = new Map<string, GroupKind>();
  /** The uid of the target the members hang from. */
  private root: string | undefined;
  /** Objects of the child informers their handlers delivered since the last view: uid → where to read it. */
  private touched = new Map<string, { child: ChildInformer; key: string }>();
  private wholeNext = true;

  constructor(
    private readonly informers: ChainInformers,
    private readonly track: Track,
    /** The target's group and kind: what the root can own. */
    private readonly rootKind: GroupKind,
  ) {}

  /** Notes a child object the next view reads again from the cache (a tombstone without its object: the whole chain). */
  touch(child: ChildInformer, obj: KubeObject | { key: string; obj?: KubeObject | null }): void {
    const o = isDeletedFinalStateUnknown(obj) ? obj.obj : (obj as KubeObject);
    const uid = o?.metadata?.uid;
    if (uid) this.touched.set(uid, { child, key: deletionHandlingMetaNamespaceKeyFunc(obj) });
    else this.wholeNext = true;
  }

  /**
   * Whether a child object may be of the chain: a member, or owned by the root or a member (or a
   * tombstone without its object). An object that joins later brings its children in the cache
   * with it, so one left out here is found then.
   */
  concerns(obj: KubeObject | { key: string; obj?: KubeObject | null }): boolean {
    const o = isDeletedFinalStateUnknown(obj) ? obj.obj : (obj as KubeObject);
    const uid = o?.metadata?.uid;
    if (!uid || this.wholeNext || this.members.has(uid)) return true;
    return (o.metadata.ownerReferences ?? []).some((r) => r.uid === this.root || this.members.has(r.uid));
  }

  /** The next view walks the whole chain. */
  markFull(): void {
    this.wholeNext = true;
  }

  /** Whether the next view for a root of this uid must walk the whole chain. */
  needsFull(rootUid: string | undefined): boolean {
    return this.wholeNext || rootUid !== this.root;
  }

  /** Every descendant of the root, breadth first; the members rebuilt from them. */
  full(root: ObjectRef | undefined): TrackedObject[] {
    this.members.clear();
    this.memberChildren.clear();
    this.memberKinds.clear();
    this.touched.clear();
    this.wholeNext = false;
    this.root = root?.uid;
    const descendants: TrackedObject[] = [];
    if (root) this.joinDescendants(root, this.rootKind, (t) => descendants.push(t));
    return descendants;
  }

  /** The members the handlers told of since the last view, read again: what joined, changed or left. */
  update(root: ObjectRef): TrackedObject[] {
    const touched = this.touched;
    this.touched = new Map();
    const handed = new Set<string>();
    for (const [uid, { child, key }] of touched) {
      const cached = child.informer.getIndexer().getByKey(key) as KubeObject | undefined;
      const obj = cached?.metadata.uid === uid ? cached : undefined;
      const owner = obj ? this.ownerInChain(child, obj, root) : undefined;
      const was = this.members.get(uid);
      if (!obj || !owner) {
        if (was) this.leave(uid);
        continue;
      }
      const t = this.track(child.info.kind, obj, owner);
      this.join(t, child.info);
      handed.add(uid);
      if (!was) this.joinDescendants(t.ref, child.info, (d) => handed.add(d.ref.uid));
    }
    const out: TrackedObject[] = [];
    for (const uid of handed) {
      const t = this.members.get(uid);
      if (t) out.push(t);
    }
    return out;
  }

  /** Whether `uid` is of the chain below the target as the last view left it. */
  has(uid: string): boolean {
    return this.members.has(uid);
  }

  /** The uids of the chain below the target as the last view left it. */
  memberUids(): string[] {
    return [...this.members.keys()];
  }

  /** Members of the chain being deleted (a deletionTimestamp set): the last view's. */
  terminating(): number {
    let n = 0;
    for (const t of this.members.values()) if (t.obj.metadata.deletionTimestamp) n++;
    return n;
  }

  /** The first of an object's owners that is in the chain and can own its kind. */
  private ownerInChain(child: ChildInformer, obj: KubeObject, root: ObjectRef): ObjectRef | undefined {
    for (const ref of obj.metadata.ownerReferences ?? []) {
      const parent = ref.uid === root.uid ? root : this.members.get(ref.uid)?.ref;
      const kind = ref.uid === root.uid ? this.rootKind : this.memberKinds.get(ref.uid);
      if (parent && kind && this.informers.ownable(kind).includes(child)) return parent;
    }
    return undefined;
  }

  /** Makes `t`, of a group and kind, the member for its uid, under its owner (moved from another owner, if it had one). */
  private join(t: TrackedObject, kind: GroupKind): void {
    const was = this.members.get(t.ref.uid);
    if (was?.owner && was.owner.uid !== t.owner?.uid) this.memberChildren.get(was.owner.uid)?.delete(t.ref.uid);
    this.members.set(t.ref.uid, t);
    this.memberKinds.set(t.ref.uid, kind);
    if (!t.owner) return;
    let kids = this.memberChildren.get(t.owner.uid);
    if (!kids) this.memberChildren.set(t.owner.uid, (kids = new Set()));
    kids.add(t.ref.uid);
  }

  /**
   * The descendants of `top` (of a group and kind) in the cache that are not members yet join,
   * breadth first, through the informers each kind can own; `joined` is told of each.
   */
  private joinDescendants(top: ObjectRef, topKind: GroupKind, joined: (t: TrackedObject) => void): void {
    let frontier: { ref: ObjectRef; kind: GroupKind }[] = [{ ref: top, kind: topKind }];
    while (frontier.length > 0) {
      const next: typeof frontier = [];
      for (const parent of frontier) {
        for (const c of this.informers.ownable(parent.kind)) {
          for (const obj of this.informers.ownedBy(c, parent.ref.uid)) {
            if (this.members.has(obj.metadata.uid ?? '')) continue;
            const t = this.track(c.info.kind, obj, parent.ref);
            this.join(t, c.info);
            joined(t);
            next.push({ ref: t.ref, kind: c.info });
          }
        }
      }
      frontier = next;
    }
  }

  /** A member that left the chain takes its descendants with it. */
  private leave(uid: string): void {
    const t = this.members.get(uid);
    if (!t) return;
    this.members.delete(uid);
    this.memberKinds.delete(uid);
    if (t.owner) this.memberChildren.get(t.owner.uid)?.delete(uid);
    const kids = this.memberChildren.get(uid);
    this.memberChildren.delete(uid);
    for (const kid of kids ?? []) this.leave(kid);
  }
}
