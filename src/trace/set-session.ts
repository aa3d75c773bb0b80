/**
 * A change of many objects, traced at once: a folder, a chart's `helm template` output, a
 * kustomization. Every object is applied server-side in an order that works (apply-order.ts),
 * and each is followed to its readiness by the command's readiness engine.
 *
 * Contract:
 * - Steps run in apply order. Before a step's writes, its objects' kinds are resolved (a custom
 *   resource's once its definition is Established) and their traces started, so that each trace's
 *   baseline is taken before its write. A Namespace or a CustomResourceDefinition is waited for
 *   (Active, Established) before the next step.
 * - A built-in workload or a custom resource is traced (TraceSession), its chain hop by hop; any
 *   other object is judged as the apply leaves it and, when it has a readiness (a claim Bound, a
 *   load balancer's address), waited for. An object without readiness (a ConfigMap, RBAC) is
 *   applied, and that is all.
 * - The traces share their informers (informer-pool.ts): one per kind and namespace. A trace that
 *   ended takes its handlers away from them; the informers run until the set ends.
 * - An object the server refuses is named with the server's reason; the rest go on.
 * - One deadline for the set, `timeoutMs` from the first write. With `failFast`, the first object
 *   that fails (Failed, or refused) ends the set: the traces stop and later steps are not applied.
 * - Each object is said once as it is applied, each hop with its object as it comes, and each
 *   object once when it settles (subscribe()).
 */
import { realClock, type Clock, type Timer } from '../clock.js';
import type { InformerEvent, SharedIndexInformer } from '../informer/index.js';
import { UsageError } from '../errors.js';
import { favourSmallHeap } from '../util/heap.js';
import { apiVersionOf, groupResource, ObjectWriter, type Kube, type KubeObject, type ResourceInfo } from '../kube/index.js';
import { isSettled, type Readiness, type ReadinessStatus, type Verdict } from '../readiness/index.js';
import { applyStep, inApplyOrder, APPLY_STEPS, type ApplyStep } from './apply-order.js';
import { clusterInformerPool } from './chain-informers.js';
import { isCustomResource } from './child-discovery.js';
import type { InformerPool } from './informer-pool.js';
import { receivedAt } from './received-at.js';
import { TraceSession } from './session.js';
import { APPLY_FIELD_MANAGER } from './triggers.js';
import type { TraceEvent, TraceSnapshot } from './types.js';

/** One object of the set, as read from its file. */
export interface SetInput {
  obj: KubeObject;
  /** `app.yaml: document 2` */
  source: string;
}

/** Where an object of the set stands. */
export type MemberState =
  /** Not written yet (a later step, or stopped by --fail-fast). */
  | 'pending'
  /** Written; its readiness not settled yet. */
  | 'applied'
  /** Ready: Current in the readiness engine's words. */
  | 'ready'
  /** Applied; its kind has no readiness to wait for (a ConfigMap, RBAC). */
  | 'no-readiness'
  | 'failed'
  /** Not ready by the deadline. */
  | 'not-ready'
  /** The server refused it. */
  | 'refused'
  /** Stopped before it settled: an interrupt, or --fail-fast after another failed. */
  | 'stopped';

export interface SetMember {
  /** Place in apply order, from 0. */
  index: number;
  source: string;
  apiVersion: string;
  kind: string;
  namespace: string | undefined;
  name: string;
  step: ApplyStep;
  info?: ResourceInfo | undefined;
  state: MemberState;
  /** What the apply did; with `watch`, `changed` once someone else's change to it was seen. */
  applied?: 'created' | 'configured' | 'unchanged' | 'changed' | undefined;
  /** Our clock when its write was sent (with `watch`: when its change was seen). */
  appliedAt?: number | undefined;
  /** Our clock when it was seen ready. */
  readyAt?: number | undefined;
  /** Our clock when it settled: ready, failed, not ready by the deadline, stopped. */
  settledAt?: number | undefined;
  /** The readiness engine's last verdict on it. */
  verdict?: Verdict | undefined;
  /** Why it is not ready, refused or stopped, in one line. */
  message?: string | undefined;
  /** Its trace, for a workload or a custom resource. */
  session?: TraceSession | undefined;
}

export type SetEvent =
  | { type: 'applied'; member: SetMember; at: number }
  /** With `watch`: someone else's change to it was seen. */
  | { type: 'changed'; member: SetMember; at: number }
  /** With `watch`: every trace has its baseline; changes from now on are traced. */
  | { type: 'watching'; at: number }
  /** With a selector: an object the change created joined the set (its `changed` follows). */
  | { type: 'joined'; member: SetMember; at: number }
  | { type: 'refused'; member: SetMember; at: number }
  | { type: 'trace'; member: SetMember; event: TraceEvent }
  | { type: 'settled'; member: SetMember; at: number };

export interface SetSelection {
  /** A label selector, as `kubectl get -l` takes it. */
  labelSelector: string;
  kinds: ResourceInfo[];
}

export interface SetSessionOptions {
  kube: Kube;
  readiness: Readiness;
  inputs: SetInput[];
  /** Where an object without a namespace lands (the kubeconfig's, or -n). */
  defaultNamespace: string;
  timeoutMs: number;
  syncTimeoutMs: number;
  coalesceMs: number;
  settleMs: number;
  failFast: boolean;
  /**
   * Write nothing: the next change someone else makes to these objects (a `helm upgrade` in
   * another step) is traced, objects created then included. The change is over when every object
   * it reached has settled and none has changed for `settleMs` since; the objects it left alone
   * are then judged as they stand. Custom resources' definitions must exist already.
   */
  watch?: boolean;
  /**
   * With `watch`, instead of `inputs`: the objects these labels select among these kinds, in
   * `defaultNamespace` (a cluster-scoped kind, cluster-wide). Those that a controller owns (a
   * Deployment's ReplicaSets and Pods) are left to their owners' chains; one created while the
   * change goes on joins the set, traced from its creation.
   */
  select?: SetSelection | undefined;
  signal: AbortSignal;
  onInformerEvent?: (event: InformerEvent) => void;
  clock?: Clock;
}

/** `deployment.apps/web`, as kubectl names what it applied. */
export function memberLabel(m: Pick<SetMember, 'kind' | 'name' | 'info'>): string {
  const singular = m.info?.singularName || m.kind.toLowerCase();
  return `${singular}${m.info?.group ? `.${m.info.group}` : ''}/${m.name}`;
}

/**
 * What `-l` selects among: the kinds named (TYPE names, as kubectl takes them), or without any the
 * kinds of `kubectl get all`. A kind that cannot be listed and watched is refused.
 */
export async function selection(kube: Kube, labelSelector: string, names: readonly string[]): Promise<SetSelection> {
  const kinds = names.length ? await Promise.all(names.map((k) => kube.discovery.resolve(k))) : await kube.discovery.category('all');
  for (const k of kinds)
    if (!k.verbs.includes('list') || !k.verbs.includes('watch'))
      throw new UsageError(`${groupResource(k)} cannot be listed and watched, so -l cannot select among them`);
  return { labelSelector, kinds };
}

/** `watching 3 objects (deployments, services selected by -l app=web in demo)`: what a watched set is. */
export function watchingText(objects: number, select: SetSelection | undefined, namespace: string | undefined): string {
  const count = `watching ${objects} object${objects === 1 ? '' : 's'}`;
  if (!select) return count;
  const kinds = select.kinds.map((k) => k.resource).join(', ');
  const where = namespace && select.kinds.some((k) => k.namespaced) ? ` in ${namespace}` : '';
  return `${count} (the ${kinds} selected by -l ${select.labelSelector}${where})`;
}

export class SetSession {
  readonly members: SetMember[];
  readonly clock: Clock;
  private readonly pool: InformerPool;
  private readonly controller = new AbortController();
  private readonly listeners = new Set<(e: SetEvent) => void>();
  private readonly settling: Promise<void>[] = [];
  private readonly writer: ObjectWriter;
  private firstWriteAt: number | undefined;
  private endedAtMs: number | undefined;
  private stopped: string | undefined;
  /** Each member's object as it is applied (its namespace filled in once its kind is resolved). */
  private readonly manifests: Map<SetMember, KubeObject>;
  /** With `watch`: re-arms the wait for the end of the change (a change began, or an object settled). */
  private quietCheck: (() => void) | undefined;

  constructor(private readonly o: SetSessionOptions) {
    this.clock = o.clock ?? realClock;
    this.writer = new ObjectWriter(o.kube.client);
    const ordered = inApplyOrder(o.inputs, (i) => i.obj);
    this.members = ordered.map((input, index) => ({
      index,
      source: input.source,
      apiVersion: input.obj.apiVersion!,
      kind: input.obj.kind!,
      namespace: input.obj.metadata.namespace,
      name: input.obj.metadata.name!,
      step: applyStep(input.obj),
      state: 'pending',
    }));
    this.manifests = new Map(this.members.map((m, i) => [m, ordered[i]!.obj]));
    // Hundreds of traces each remake their snapshot on every change: see util/heap.ts.
    favourSmallHeap();
    if (o.signal.aborted) this.controller.abort();
    o.signal.addEventListener('abort', () => this.stop('interrupted'), { once: true });
    this.pool = clusterInformerPool(o.kube, this.clock, this.controller.signal, o.onInformerEvent);
  }

  subscribe(fn: (e: SetEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private emit(e: SetEvent): void {
    for (const fn of this.listeners) fn(e);
  }

  /** Whether it watches for someone else's change rather than applying. */
  get watching(): boolean {
    return this.o.watch === true;
  }

  /** Our clock at the first write, once one was sent. */
  get startedAt(): number | undefined {
    return this.firstWriteAt;
  }

  /** How many informers the set runs: one per kind and namespace. */
  informerCount(): number {
    return this.pool.size();
  }

  /** Applies every step in order and resolves once every object settled, the deadline passed, or the set was stopped. */
  async run(): Promise<void> {
    if (this.o.watch) await this.watchForChange();
    else await this.applyAll();
    await Promise.all(this.settling);
    this.endedAtMs = this.clock.now();
    this.pool.close();
  }

  private async applyAll(): Promise<void> {
    let definitions = false;
    for (const step of APPLY_STEPS) {
      const members = this.members.filter((m) => m.step === step);
      if (members.length === 0) continue;
      if (this.stopped) break;
      // Custom resources are resolved once their definitions are served.
      if (definitions) this.o.kube.discovery.invalidate();
      definitions = step === 'definitions';
      await this.resolve(members);
      await this.startTraces(members);
      for (const m of members) {
        if (this.stopped) break;
        if (m.state === 'pending' && m.info) await this.apply(m);
      }
      // What lives in a Namespace, and the custom resources of a definition, wait for it.
      if (step === 'namespaces' || step === 'definitions') await Promise.all(this.settling);
    }
  }

  /**
   * --watch: every workload and custom resource traced from its next change (its creation, for one
   * that does not exist yet); resolves once the change is over (see `watch`), at the deadline, or
   * when the set is stopped.
   */
  private async watchForChange(): Promise<void> {
    const selectors = this.o.select ? await this.selectMembers(this.o.select) : [];
    await this.resolve(this.members);
    await this.startTraces(this.members);
    const watchedAt = this.clock.now();
    await Promise.all(this.members.filter((m) => m.session).map((m) => m.session!.fire(this.o.timeoutMs)));
    // Objects the selector finds from now on were created by the change: they join the set.
    const joining = selectors.map((s) =>
      s.informer.addEventHandler(
        {
          // The cached ones are members already, but for any created while the traces started.
          onAdd: (obj) => void this.settling.push(this.joinCreated(s.info, obj, watchedAt)),
        },
        { name: 'set-selector' },
      ),
    );
    this.emit({ type: 'watching', at: this.clock.now() });
    await new Promise<void>((resolve) => {
      let quiet: Timer | undefined;
      const end = (): void => {
        quiet?.stop();
        deadline.stop();
        for (const r of joining) void r.remove();
        this.controller.signal.removeEventListener('abort', end);
        this.quietCheck = undefined;
        resolve();
      };
      // After the last change began or an object settled: the change is over when nothing is in progress.
      this.quietCheck = () => {
        quiet?.stop();
        quiet = this.clock.setTimer(this.o.settleMs, () => {
          if (this.members.some((m) => m.state === 'applied')) return;
          this.judgeUnchanged();
          end();
        });
      };
      const deadline = this.clock.setTimer(Math.max(0, watchedAt + this.o.timeoutMs - this.clock.now()), () => {
        if (this.firstWriteAt === undefined) {
          for (const m of this.members.filter((x) => x.state === 'pending')) {
            m.applied = 'unchanged';
            this.settleAs(m, 'stopped', 'no change was seen within the timeout');
          }
        } else this.judgeUnchanged();
        end();
      });
      this.controller.signal.addEventListener('abort', end, { once: true });
    });
  }

  /**
   * The members a selector finds now, in apply order, and the informers that find those created
   * later (their cached objects already members).
   */
  private async selectMembers(select: SetSelection): Promise<{ info: ResourceInfo; informer: SharedIndexInformer }[]> {
    const selectors = select.kinds.map((info) => ({
      info,
      informer: this.pool.informer({
        info,
        namespace: info.namespaced ? this.o.defaultNamespace : undefined,
        metadataOnly: true,
        labelSelector: select.labelSelector,
      }),
    }));
    await this.pool.sync(
      selectors.map((s) => s.informer),
      { signal: this.controller.signal, timeoutMs: this.o.syncTimeoutMs, clock: this.clock },
    );
    const found = selectors.flatMap((s) =>
      (s.informer.getIndexer().list() as KubeObject[]).filter((obj) => !controlled(obj)).map((obj) => this.memberOf(s.info, obj)),
    );
    for (const m of inApplyOrder(found, (x) => x)) this.addMember(m);
    return selectors;
  }

  /** A new member (pending) for an object the selector found; its apiVersion and kind are its resource's (a metadata-only list names neither). */
  private memberOf(info: ResourceInfo, obj: KubeObject): Omit<SetMember, 'index'> {
    const apiVersion = apiVersionOf(info);
    return {
      source: `-l ${this.o.select?.labelSelector ?? ''}`,
      apiVersion,
      kind: info.kind,
      namespace: obj.metadata.namespace,
      name: obj.metadata.name ?? '',
      step: applyStep({ apiVersion, kind: info.kind }),
      state: 'pending',
    };
  }

  private addMember(m: Omit<SetMember, 'index'>): SetMember {
    const member: SetMember = { ...m, index: this.members.length };
    this.members.push(member);
    this.manifests.set(member, { apiVersion: m.apiVersion, kind: m.kind, metadata: { name: m.name, namespace: m.namespace } });
    return member;
  }

  /**
   * An object the change created (the selector found it after the watch began): it joins the set,
   * a workload or custom resource traced from its creation, anything else judged as it stands.
   */
  private async joinCreated(info: ResourceInfo, obj: KubeObject, watchedAt: number): Promise<void> {
    const at = receivedAt(obj) ?? this.clock.now();
    const apiVersion = apiVersionOf(info);
    const { name, namespace } = obj.metadata;
    if (this.stopped || controlled(obj)) return;
    if (this.members.some((m) => m.name === name && m.namespace === namespace && m.kind === info.kind && m.apiVersion === apiVersion)) return;
    const m = this.addMember(this.memberOf(info, obj));
    m.applied = 'created';
    this.emit({ type: 'joined', member: m, at });
    await this.resolve([m]);
    if (m.state !== 'pending' || this.stopped) return;
    if (!this.traced(m)) {
      this.firstWriteAt ??= at;
      m.state = 'applied';
      m.appliedAt = at;
      this.emit({ type: 'changed', member: m, at });
      this.quietCheck?.();
      return this.judgedAsItStands(m);
    }
    await this.startTraces([m], at);
    await m.session?.fire(Math.max(1, watchedAt + this.o.timeoutMs - this.clock.now()));
  }

  /** The change is over (or the deadline passed): what it did not reach is judged as it stands. */
  private judgeUnchanged(): void {
    for (const m of this.members) {
      if (m.state !== 'pending' || !m.info) continue;
      m.state = 'applied';
      m.applied = 'unchanged';
      this.settling.push(this.judgedAsItStands(m));
    }
  }

  /** Judged from its kind's informer, which has synced first (one no trace asked for has not run yet). */
  private async judgedAsItStands(m: SetMember): Promise<void> {
    const informer = this.informerOf(m);
    try {
      await this.pool.sync([informer], { signal: this.controller.signal, timeoutMs: this.o.syncTimeoutMs, clock: this.clock });
    } catch (err) {
      if (!this.controller.signal.aborted) this.settleAs(m, 'stopped', `could not be read: ${(err as Error).message}`);
      return;
    }
    await this.judged(m, informer, undefined);
  }

  /** Someone else's change to a traced object was seen (its trace's trigger). */
  private changed(m: SetMember, at: number): void {
    if (m.state !== 'pending') return;
    this.firstWriteAt ??= at;
    m.state = 'applied';
    m.applied ??= 'changed';
    m.appliedAt = at;
    this.emit({ type: 'changed', member: m, at });
    this.settling.push(this.traceSettled(m));
    this.quietCheck?.();
  }

  /** Our clock when every object had settled (or the set stopped), once it has. */
  get endedAt(): number | undefined {
    return this.endedAtMs;
  }

  /** Ends the set from outside (an interrupt): every object not settled is stopped. */
  stop(why: string): void {
    if (this.stopped) return;
    this.stopped = why;
    for (const m of this.members) {
      if (m.session && m.state === 'applied') m.session.stop('interrupted', why);
      else if (m.state === 'pending' && this.o.watch) this.settleAs(m, 'stopped', why);
    }
    this.controller.abort();
  }

  close(): void {
    for (const m of this.members) m.session?.close();
    this.pool.close();
  }

  /** The trace of each traced object, as it stands. */
  snapshots(): Map<SetMember, TraceSnapshot> {
    return new Map(this.members.filter((m) => m.session).map((m) => [m, m.session!.snapshot()]));
  }

  /** Each member's resource on this server (one it does not serve is refused), and what judging their kinds needs loaded. */
  private async resolve(members: SetMember[]): Promise<void> {
    for (const m of members) {
      const info = await this.o.kube.discovery.forKind(m.apiVersion, m.kind);
      if (!info) {
        this.refuse(m, `the server does not serve ${m.kind} in ${m.apiVersion}`);
        continue;
      }
      m.info = info;
      m.namespace = info.namespaced ? (m.namespace ?? this.o.defaultNamespace) : undefined;
      const manifest = this.manifests.get(m)!;
      if (info.namespaced) this.manifests.set(m, { ...manifest, metadata: { ...manifest.metadata, namespace: m.namespace } });
    }
    // The CEL evaluator, for a kind the library has rules for, before any of them is judged.
    await this.o.readiness.prepare(members.filter((m) => m.info).map((m) => ({ group: m.info!.group, kind: m.kind })));
  }

  /** Whether an object is traced hop by hop: a workload (its Pods), or a custom resource (its operator's chain). */
  private traced(m: SetMember): boolean {
    return m.info !== undefined && (m.step === 'workloads' || isCustomResource(m.info));
  }

  /** Starts the traces of a step's workloads and custom resources, their baselines taken before any write. */
  private async startTraces(members: SetMember[], createdAt?: number): Promise<void> {
    const o = this.o;
    const started = members
      .filter((m) => m.state === 'pending' && this.traced(m))
      .map(async (m) => {
        const session = new TraceSession({
          kube: o.kube,
          target: { info: m.info!, namespace: m.namespace, name: m.name },
          readiness: o.readiness,
          coalesceMs: o.coalesceMs,
          settleMs: o.settleMs,
          stopWhenConverged: true,
          trigger: o.watch
            ? { kind: 'watch', ignoreStatus: true, ...(createdAt !== undefined ? { createdAt } : {}) }
            : { kind: 'apply', manifest: this.manifests.get(m)!, source: m.source },
          waitForTarget: o.watch === true,
          timeoutMs: o.timeoutMs,
          syncTimeoutMs: o.syncTimeoutMs,
          signal: this.controller.signal,
          pool: this.pool,
          clock: this.clock,
        });
        m.session = session;
        session.subscribe((event) => {
          if (event.type === 'trigger' && o.watch) this.changed(m, event.trigger.at);
          this.emit({ type: 'trace', member: m, event });
        });
        await session.start();
      });
    await Promise.all(started);
  }

  private async apply(m: SetMember): Promise<void> {
    this.firstWriteAt ??= this.clock.now();
    const at = this.clock.now();
    m.appliedAt = at;
    try {
      if (m.session) {
        const remaining = Math.max(1, this.firstWriteAt + this.o.timeoutMs - at);
        const trigger = await m.session.fire(remaining);
        m.applied = trigger?.applied;
        m.state = 'applied';
        this.emit({ type: 'applied', member: m, at });
        this.settling.push(this.traceSettled(m));
        return;
      }
      const informer = this.informerOf(m);
      await this.pool.sync([informer], { signal: this.controller.signal, timeoutMs: this.o.syncTimeoutMs, clock: this.clock });
      const before = informer.getIndexer().getByKey(this.keyOf(m)) as KubeObject | undefined;
      const written = await this.writer.apply(m.info!, m.namespace, m.name, this.manifests.get(m)!, APPLY_FIELD_MANAGER, this.controller.signal);
      m.applied = !before ? 'created' : before.metadata.resourceVersion === written.metadata.resourceVersion ? 'unchanged' : 'configured';
      m.state = 'applied';
      this.emit({ type: 'applied', member: m, at });
      this.settling.push(this.judged(m, informer, written));
    } catch (err) {
      if (this.controller.signal.aborted) return;
      this.refuse(m, (err as Error).message);
    }
  }

  private refuse(m: SetMember, why: string): void {
    m.state = 'refused';
    m.message = why;
    this.emit({ type: 'refused', member: m, at: this.clock.now() });
    if (this.o.failFast) this.stop(`--fail-fast: ${memberLabel(m)} was refused`);
  }

  private keyOf(m: SetMember): string {
    return m.namespace ? `${m.namespace}/${m.name}` : m.name;
  }

  /** The pool's informer for an object judged apart: whole objects, but a Secret's metadata only (its data is never cached). */
  private informerOf(m: SetMember): SharedIndexInformer {
    return this.pool.informer({ info: m.info!, namespace: m.namespace, metadataOnly: m.info!.group === '' && m.kind === 'Secret' });
  }

  /** A traced object settles when its trace ends; one the apply left unchanged is judged as it stands. */
  private async traceSettled(m: SetMember): Promise<void> {
    const snap = await m.session!.finish();
    // Ended: its handlers leave the shared informers (its snapshot and the pool's caches stay readable).
    m.session!.close();
    const converged = snap.hops.findLast((h) => h.kind === 'converged' || h.kind === 'failed');
    switch (snap.outcome) {
      case 'converged':
        return this.settle(m, 'ready', { at: converged?.observedAt, message: snap.endMessage });
      case 'failed':
        return this.settle(m, 'failed', { at: converged?.observedAt, message: snap.endMessage });
      case 'timeout':
        return this.settle(m, 'not-ready', { message: snap.endMessage });
      case 'deleted':
        return this.settle(m, 'failed', { message: snap.endMessage });
      case 'interrupted':
        return this.settle(m, 'stopped', { message: this.stopped ?? snap.endMessage });
      default: {
        // Nothing to roll out (the apply changed nothing, or only metadata): it is as ready as it stands.
        return this.judged(m, this.informerOf(m), undefined);
      }
    }
  }

  /**
   * An object judged as it stands: the apply's answer first, then each version the informer
   * receives, until it is settled (or has no readiness), the deadline passes or the set stops.
   */
  private judged(m: SetMember, informer: SharedIndexInformer, written: KubeObject | undefined): Promise<void> {
    const r = this.o.readiness;
    const verdictOf = (obj: KubeObject): Verdict => r.judge(obj, { kind: m.kind, apiVersion: m.apiVersion });
    const decide = (obj: KubeObject | undefined): MemberState | undefined => {
      if (!obj) return undefined;
      if (!r.hasReadiness(obj, { kind: m.kind, apiVersion: m.apiVersion })) return 'no-readiness';
      m.verdict = verdictOf(obj);
      return isSettled(m.verdict) ? (m.verdict.status === 'Current' ? 'ready' : 'failed') : undefined;
    };
    // Ready as the apply left it: no time passed waiting for it.
    const first = decide(written ?? (m.applied === 'unchanged' ? (informer.getIndexer().getByKey(this.keyOf(m)) as KubeObject | undefined) : undefined));
    if (first) return Promise.resolve(this.settle(m, first, { at: m.appliedAt }));
    return new Promise<void>((resolve) => {
      const key = this.keyOf(m);
      const done = (state: MemberState, message?: string): void => {
        timer.stop();
        this.controller.signal.removeEventListener('abort', onAbort);
        void reg.remove();
        this.settle(m, state, { message });
        resolve();
      };
      const look = (obj: KubeObject): void => {
        if (obj.metadata?.name !== m.name || m.state !== 'applied') return;
        const state = decide(obj);
        if (state) done(state);
      };
      const reg = informer.addEventHandler({ onAdd: look, onUpdate: (_o, obj) => look(obj) }, { name: 'set' });
      const deadline = (this.firstWriteAt ?? this.clock.now()) + this.o.timeoutMs - this.clock.now();
      const timer = this.clock.setTimer(Math.max(0, deadline), () =>
        done('not-ready', `not ready within the timeout${m.verdict ? `: ${m.verdict.detail}` : ''}`),
      );
      const onAbort = (): void => done('stopped', this.stopped);
      this.controller.signal.addEventListener('abort', onAbort, { once: true });
      const cached = informer.getIndexer().getByKey(key) as KubeObject | undefined;
      if (cached) look(cached);
    });
  }

  private settle(m: SetMember, state: MemberState, o: { at?: number | undefined; message?: string | undefined }): void {
    if (m.state !== 'applied') return;
    m.state = state;
    if (o.message) m.message = o.message;
    if (state === 'ready') m.readyAt = o.at ?? this.clock.now();
    m.settledAt = this.clock.now();
    if (m.session && !m.verdict) {
      const obj = m.session.caches().target.store.getByKey(this.keyOf(m)) as KubeObject | undefined;
      if (obj) m.verdict = this.o.readiness.judge(obj, { target: true, kind: m.kind });
    }
    this.emit({ type: 'settled', member: m, at: this.clock.now() });
    if (this.o.failFast && state === 'failed') this.stop(`--fail-fast: ${memberLabel(m)} failed`);
    this.quietCheck?.();
  }

  /** A member that never reached the point of being judged (never changed, never applied, not readable). */
  private settleAs(m: SetMember, state: 'stopped', message: string | undefined): void {
    if (m.state !== 'pending' && m.state !== 'applied') return;
    m.state = state;
    if (message) m.message = message;
    m.settledAt = this.clock.now();
    this.emit({ type: 'settled', member: m, at: this.clock.now() });
  }
}

/** The readiness engine's status word for a member: its verdict's, or what the set made of it. */
export function memberStatus(m: SetMember): ReadinessStatus | 'None' | 'Refused' | 'Pending' {
  if (m.state === 'refused') return 'Refused';
  if (m.state === 'no-readiness') return 'None';
  if (m.state === 'pending') return 'Pending';
  return m.verdict?.status ?? (m.state === 'ready' ? 'Current' : m.state === 'stopped' ? 'Unknown' : 'InProgress');
}

/** Whether a controller owns the object (a Deployment's ReplicaSet, a ReplicaSet's Pod): its owner's chain shows it. */
function controlled(obj: KubeObject): boolean {
  return obj.metadata.ownerReferences?.some((o) => o.controller === true) === true;
}
