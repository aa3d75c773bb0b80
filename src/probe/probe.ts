/**
 * The probe loop: every interval, one round — make sure the canary exists (when the probe owns
 * it), write the trigger (a restart, or a scale to the other of two sizes), trace the reconcile
 * chain with the same TraceSession as the CLI until the canary converged (or the round timed
 * out), diagnose it, record the metrics and export the trace. Nothing but the canary is written.
 *
 * The rounds share their informers (an InformerPool, as the traces of a set do): each kind of the
 * chain is listed once and then watched, not listed and watched anew every round. A round that
 * fails lets them go, and the next one lists afresh: after an API server restart, a refused
 * request or a namespace that went away, nothing is judged from a cache that may be stale.
 *
 * A round that fails (the API server is restarting, a write is refused) is counted and the loop
 * goes on. A failure that retrying will not heal — the namespace or the --target does not exist,
 * RBAC refuses a request (403), the canary's name is taken — is a setting problem: it is logged
 * once, naming what is missing or refused; the rounds it fails stay quiet while it stands; /readyz
 * fails with it; the first round that syncs again logs its end. When the stop signal aborts, the
 * round in progress gets `shutdownGraceMs` to finish;
 * then it is abandoned, and run() resolves.
 */
import { realClock, type Clock } from '../clock.js';
import { formatError, UsageError } from '../errors.js';
import { LeaseObserver, type LeaseSnapshot } from '../lease/index.js';
import { isDeletedFinalStateUnknown, runUntilSynced, SharedIndexInformer, splitMetaNamespaceKey } from '../informer/index.js';
import {
  describeRequest,
  isApiError,
  isForbidden,
  isNotFound,
  namespaceExists,
  LEASES,
  ObjectWriter,
  ResourceListerWatcher,
  toCliError,
  type Kube,
  type Lease,
  type ResourceInfo,
} from '../kube/index.js';
import type { TraceSpanExporter } from '../output/otlp.js';
import { CONTROL_PLANE_LEASES, diagnoseChain } from '../diagnose/index.js';
import { clusterInformerPool, DEFAULT_COALESCE_MS, TraceSession, type InformerPool, type TraceSnapshot, type TriggerRequest } from '../trace/index.js';
import { formatDuration } from '../util/duration.js';
import type { Readiness } from '../readiness/index.js';
import { ensureCanary, type CanarySpec } from './canary.js';
import { roundOutcome, type ProbeMetrics, type RoundOutcome } from './metrics.js';

export interface ProbeOptions {
  kube: Kube;
  /** The workload traced each round. */
  target: { info: ResourceInfo; namespace: string; name: string };
  /** Set when the probe owns the target (its canary): created when missing. */
  canary?: CanarySpec | undefined;
  mode: { kind: 'restart' } | { kind: 'scale'; sizes: [number, number] };
  intervalMs: number;
  timeoutMs: number;
  syncTimeoutMs: number;
  /** The command's readiness engine, which judges each round's target and its children. */
  readiness: Readiness;
  shutdownGraceMs: number;
  /** Stop after this many rounds (0: never). */
  maxRounds?: number;
  metrics: ProbeMetrics;
  exporter?: TraceSpanExporter | undefined;
  log: (line: string) => void;
  clock?: Clock;
}

export interface RoundResult {
  round: number;
  outcome: RoundOutcome | undefined;
  snapshot: TraceSnapshot | undefined;
  error?: string | undefined;
}

export class Probe {
  private readonly clock: Clock;
  private roundsDone = 0;
  private readySince: number | undefined;
  private lastProgressAt: number;
  private leaseObserver: LeaseObserver | undefined;
  private settingProblem: string | undefined;
  private leaseInformer: SharedIndexInformer | undefined;
  /** The informers the rounds share, until a round fails. */
  private pool: InformerPool | undefined;

  constructor(private readonly options: ProbeOptions) {
    this.clock = options.clock ?? realClock;
    this.lastProgressAt = this.clock.now();
    options.metrics.setLeaseSource(() => this.leases());
    options.metrics.setInformerSource(() => [...(this.leaseInformer ? [this.leaseInformer] : []), ...(this.pool?.informers() ?? [])].map((i) => i.stats()));
  }

  /** Ready once a round's informers synced against the API server, while no setting problem stands. */
  get ready(): boolean {
    return this.readySince !== undefined && this.settingProblem === undefined;
  }

  /** Why the probe is not ready, in one line; undefined when it is. */
  get notReadyReason(): string | undefined {
    if (this.settingProblem !== undefined) return this.settingProblem;
    return this.readySince === undefined ? 'not synced with the API server yet' : undefined;
  }

  /** Logs a setting problem when it appears or changes, and its end (undefined) once. */
  private noteProblem(problem: string | undefined): void {
    const before = this.settingProblem;
    if (problem === before) return;
    this.settingProblem = problem;
    if (problem !== undefined) this.options.log(`${problem}; the rounds go on, failing quietly until it changes`);
    else this.options.log(`resolved: ${before}`);
  }

  /**
   * Alive while the loop makes progress: a round or a wait between rounds never lasts longer than
   * the interval plus the round's timeout and its sync, with a margin.
   */
  get healthy(): boolean {
    const o = this.options;
    return this.clock.now() - this.lastProgressAt < o.intervalMs + o.timeoutMs + o.syncTimeoutMs + 60_000;
  }

  get rounds(): number {
    return this.roundsDone;
  }

  private leases(): LeaseSnapshot[] {
    return this.leaseObserver?.snapshot() ?? [];
  }

  /** Runs rounds until `stop` aborts (or maxRounds are done). */
  async run(stop: AbortSignal): Promise<void> {
    const hard = new AbortController();
    let graceTimer: { stop(): boolean } | undefined;
    const onStop = (): void => {
      this.options.log(`stopping: the round in progress has ${formatDuration(this.options.shutdownGraceMs)} to finish`);
      graceTimer = this.clock.setTimer(this.options.shutdownGraceMs, () => hard.abort(new Error('shutdown grace period over')));
    };
    if (stop.aborted) return;
    stop.addEventListener('abort', onStop, { once: true });
    const leases = this.watchLeases(hard.signal);
    try {
      for (let n = 1; !stop.aborted; n++) {
        const startedAt = this.clock.now();
        this.lastProgressAt = startedAt;
        const result = await this.round(n, hard.signal);
        this.lastProgressAt = this.clock.now();
        if (result.outcome) this.roundsDone++;
        if (this.options.maxRounds && n >= this.options.maxRounds) break;
        const wait = startedAt + this.options.intervalMs - this.clock.now();
        if (wait > 0 && !stop.aborted) await this.clock.sleep(wait, stop);
      }
    } finally {
      stop.removeEventListener('abort', onStop);
      graceTimer?.stop();
      hard.abort();
      this.letInformersGo();
      await leases.catch(() => undefined);
      this.leaseObserver?.close();
    }
  }

  /** One round; never throws: a failure is the round's outcome. */
  async round(n: number, signal: AbortSignal): Promise<RoundResult> {
    const o = this.options;
    const { target } = o;
    const where = `${target.info.kind}/${target.name} in ${target.namespace}`;
    let session: TraceSession | undefined;
    try {
      if (o.canary && (await ensureCanary(o.kube, target.info, o.canary, signal)))
        o.log(`created the canary ${where} (${o.canary.replicas} replica${o.canary.replicas === 1 ? '' : 's'}, ${o.canary.image})`);
      const trigger = await this.trigger(signal);
      session = new TraceSession({
        kube: o.kube,
        target,
        coalesceMs: DEFAULT_COALESCE_MS,
        settleMs: 3_000,
        // The round measures convergence; old Pods still terminating are not the controllers' latency.
        stopWhenConverged: true,
        trigger,
        readiness: o.readiness,
        timeoutMs: o.timeoutMs,
        syncTimeoutMs: o.syncTimeoutMs,
        signal,
        pool: (this.pool ??= clusterInformerPool(o.kube, this.clock, signal)),
        metricsProvider: o.metrics.workqueue,
        clock: this.clock,
        onInformerEvent: (e, phase) => {
          if (phase === 'trace' && (e.level === 'warning' || e.level === 'error')) o.log(`round ${n}: ${e.level}: ${e.message}`);
        },
      });
      await session.start();
      this.noteProblem(undefined);
      this.readySince ??= this.clock.now();
      const fired = await session.fire();
      if (fired) o.log(`round ${n}: wrote: ${fired.wrote}`);
      const snap = await session.finish();
      const outcome = roundOutcome(snap.outcome);
      const endedAt = session.endedAt ?? this.clock.now();
      if (!outcome) {
        o.log(`round ${n}: abandoned (${snap.endMessage ?? 'stopping'}) after ${snap.hops.length} hops`);
        return { round: n, outcome, snapshot: snap };
      }
      o.metrics.recordRound(outcome, snap);
      const converged = snap.hops.find((h) => h.kind === 'converged');
      const took = converged && snap.trigger ? ` in ${formatDuration(converged.observedAt - snap.trigger.at)}` : '';
      let line = `round ${n}: ${outcome}${took} (${snap.hops.length} hops)`;
      if (!signal.aborted) {
        const diagnosis = await diagnoseChain(o.kube, session.caches(), target, { signal, readiness: o.readiness }).catch(() => undefined);
        if (diagnosis) {
          o.metrics.recordDiagnosis(diagnosis);
          if (outcome !== 'converged') line += `; ${diagnosis.summary}`;
        }
      }
      if (o.exporter) {
        try {
          const sent = await o.exporter.export(snap, endedAt);
          line += `; trace ${sent.traceId} (${sent.spans} spans) exported`;
        } catch (err) {
          o.metrics.exportFailed();
          line += `; trace export failed: ${(err as Error).message}`;
        }
      }
      o.log(line);
      return { round: n, outcome, snapshot: snap };
    } catch (err) {
      if (signal.aborted) {
        o.log(`round ${n}: abandoned`);
        return { round: n, outcome: undefined, snapshot: undefined };
      }
      const message = oneLine(toCliError(err, { server: o.kube.connection.server, user: o.kube.connection.userName }));
      o.metrics.recordRound('failed', undefined);
      this.letInformersGo();
      // A failure that may heal (the API server unreachable) is said each round; it does not end a setting problem.
      const problem = await this.classify(err, signal);
      if (problem !== undefined) this.noteProblem(problem);
      else o.log(`round ${n}: failed: ${message}`);
      return { round: n, outcome: 'failed', snapshot: undefined, error: message };
    } finally {
      session?.close();
    }
  }

  /** Stops the rounds' shared informers; their counts stay in the metrics, and the next round lists afresh. */
  private letInformersGo(): void {
    if (!this.pool) return;
    this.options.metrics.recordInformers(this.pool.informers().map((i) => i.stats()));
    this.pool.close();
    this.pool = undefined;
  }

  /**
   * A failure as a setting problem, or undefined when retrying may heal it: a 403 names the request
   * RBAC refused; a 404 in a namespace that does not exist names the namespace.
   */
  private async classify(err: unknown, signal: AbortSignal): Promise<string | undefined> {
    // A canary name taken by a Deployment the probe does not own.
    if (err instanceof UsageError) return oneLine(err);
    if (!isApiError(err)) return undefined;
    if (isForbidden(err)) {
      // The API server names the user it authenticated; the kubeconfig's user name is only a label.
      const user = /User "([^"]+)"/.exec(err.message)?.[1] ?? this.options.kube.connection.userName;
      const what = err.request ? describeRequest({ ...err.request, name: undefined }) : (err.operation ?? err.message);
      return `forbidden: ${user ? `${user} may not ` : 'may not '}${what}`;
    }
    const namespace = err.request?.namespace ?? this.options.target.namespace;
    if (!isNotFound(err)) return undefined;
    if (await this.namespaceMissing(namespace, signal)) return `namespace "${namespace}" does not exist`;
    const { target } = this.options;
    // The probe creates its canary; a --target it is given must exist.
    if (!this.options.canary && err.request?.resource === 'deployments.apps' && err.request.name === target.name)
      return `the target ${target.info.kind}/${target.name} does not exist in namespace ${target.namespace}`;
    return undefined;
  }

  private async namespaceMissing(namespace: string, signal: AbortSignal): Promise<boolean> {
    return (await namespaceExists(this.options.kube.client, namespace, signal)) === false;
  }

  /** The write of this round: a restart, or a scale to whichever size the target is not at now. */
  private async trigger(signal: AbortSignal): Promise<TriggerRequest> {
    const { mode, target, kube } = this.options;
    if (mode.kind === 'restart') return { kind: 'restart' };
    const current = await new ObjectWriter(kube.client).get(target.info, target.namespace, target.name, signal);
    const replicas = (current.spec as { replicas?: number } | undefined)?.replicas ?? 1;
    return { kind: 'scale', replicas: replicas === mode.sizes[0] ? mode.sizes[1] : mode.sizes[0] };
  }

  /** The controllers' leader Leases, watched for the whole run; their absence is not fatal. */
  private async watchLeases(signal: AbortSignal): Promise<void> {
    const namespace = CONTROL_PLANE_LEASES[0]!.namespace;
    const names = new Set(CONTROL_PLANE_LEASES.map((l) => l.name));
    const informer = new SharedIndexInformer(new ResourceListerWatcher(this.options.kube.client, LEASES, { namespace }), { clock: this.clock });
    this.leaseInformer = informer;
    const observer = new LeaseObserver({ clock: this.clock });
    this.leaseObserver = observer;
    informer.addEventHandler(
      {
        onAdd: (obj, _initial, info) => {
          if (names.has(obj.metadata.name ?? '')) observer.observe(obj as Lease, info.receivedAt);
        },
        onUpdate: (_old, obj, info) => {
          if (names.has(obj.metadata.name ?? '')) observer.observe(obj as Lease, info.receivedAt);
        },
        onDelete: (obj, info) => {
          const key = isDeletedFinalStateUnknown(obj) ? obj.key : `${obj.metadata.namespace}/${obj.metadata.name}`;
          const { namespace: ns, name } = splitMetaNamespaceKey(key);
          if (names.has(name)) observer.observeDeleted(ns, name, info.receivedAt);
        },
      },
      { name: 'probe-leases' },
    );
    try {
      await runUntilSynced(this.options.kube, [informer], { signal, timeoutMs: this.options.syncTimeoutMs, clock: this.clock });
    } catch (err) {
      if (!signal.aborted) this.options.log(`leader Leases in ${namespace} not watched: ${oneLine(toCliError(err))}`);
    }
  }
}

/** An error as the one line a round reports, without the "error: " a command's last line has. */
function oneLine(err: unknown): string {
  return formatError(err, false)
    .split('\n')[0]!
    .replace(/^error: /, '');
}
