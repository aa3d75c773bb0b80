/**
 * Where a trace's chain is stuck, and the operator behind a custom resource, over the trace's own
 * caches: on a stall (--stall), when the trace times out or fails, and at the end.
 *
 * - A step unchanged for the stall time (or half the timeout) counts as stuck.
 * - Whoever subscribes (the TUI, whose stderr is held back until it exits) is handed each diagnosis
 *   as it is made, and the one made when the trace times out or fails; the end reuses that one
 *   rather than scrape and list again.
 * - A custom resource whose status nobody writes within the settle time is said once.
 * - A failure to diagnose or to find the operator is said on the log, and is not fatal.
 */
import {
  chainFromCaches,
  type ControllerBehind,
  DEFAULT_GRACE_MS,
  diagnoseChainWithController,
  type Diagnosis,
  readControllerBehind,
} from '../diagnose/index.js';
import type { Kube } from '../kube/index.js';
import { isCustomResource, type TraceOutcome, type TraceSession, type TraceTarget } from '../trace/index.js';
import type { DiagnosisFeed, PushedDiagnosis } from '../tui/trace-app.js';
import { formatDuration } from '../util/duration.js';
import type { TraceMetrics } from './trace-metrics.js';
import type { TraceSink } from './trace-sinks.js';

/** How long the look-up of the operator behind a custom resource may take at the end of a trace. */
const CONTROLLER_LOOKUP_MS = 5_000;

interface Diagnosed {
  diagnosis: Diagnosis;
  controller: ControllerBehind | undefined;
}

export interface TraceDiagnosisOptions {
  kube: Kube;
  session: TraceSession;
  target: TraceTarget;
  metrics: TraceMetrics | undefined;
  /** Without metrics: why (no --metrics, and what finding the operator's replicas tried). */
  noMetrics?: string | undefined;
  timeoutMs: number;
  stallMs: number | undefined;
  settleMs: number;
  log: (line: string) => void;
}

export class TraceDiagnoses {
  /** What the TUI reads: a diagnosis on demand, those made on the way, the operator behind a custom resource. */
  readonly feed: DiagnosisFeed;
  private readonly toScreen = new Set<(p: PushedDiagnosis) => void>();
  private readonly custom: boolean;
  /** The last diagnosis made on a stall. */
  private lastStall: Diagnosis | undefined;
  /** The diagnosis made as the trace timed out or failed, for a subscriber. */
  private atEndShown: Promise<Diagnosed | undefined> | undefined;

  constructor(private readonly o: TraceDiagnosisOptions) {
    this.custom = isCustomResource(o.target.info);
    this.feed = {
      diagnose: async () => (await this.full()).diagnosis,
      subscribe: (fn) => (this.toScreen.add(fn), () => void this.toScreen.delete(fn)),
      controller: this.custom ? () => this.controllerBehind(() => undefined) : undefined,
    };
  }

  /** Arms the stall diagnosis, the at-end diagnosis for subscribers, and the note on a status nobody writes. */
  watch(sink: TraceSink): void {
    const { session, stallMs, timeoutMs } = this.o;
    void session.ended.then(() => {
      const outcome = session.snapshot().outcome;
      if (this.toScreen.size === 0 || (outcome !== 'timeout' && outcome !== 'failed')) return;
      this.atEndShown = this.full().then(
        (d) => (this.show(d.diagnosis, outcome === 'timeout' ? `timed out after ${formatDuration(timeoutMs)}` : 'the trace failed', true), d),
        (err: unknown) => this.failed(err),
      );
    });
    if (stallMs !== undefined) {
      session.onStall(stallMs, (stall) => {
        this.full().then(
          ({ diagnosis }) => {
            this.lastStall = diagnosis;
            this.show(diagnosis, `no new hop for ${formatDuration(stall.sinceMs)}`);
            sink.stalled(diagnosis, stall.sinceMs);
          },
          (err: unknown) => this.failed(err),
        );
      });
    }
    if (this.custom) this.noteUnknownReadiness();
  }

  /**
   * At the end: where it is stuck if it did not converge (after an interrupt, the last stall's
   * diagnosis if any), and the operator behind a custom resource unless the user interrupted.
   */
  async atEnd(outcome: TraceOutcome | undefined, interrupted: boolean): Promise<{ stuck: Diagnosis | undefined; controller: ControllerBehind | undefined }> {
    let stuck = outcome === 'interrupted' ? this.lastStall : undefined;
    let diagnosed: Diagnosed | undefined;
    if (outcome === 'timeout' || outcome === 'failed') {
      diagnosed = this.atEndShown ? await this.atEndShown : await this.full().catch((err: unknown) => this.failed(err));
      stuck = diagnosed?.diagnosis ?? this.lastStall;
    }
    const controller = this.custom && !interrupted ? (diagnosed ? diagnosed.controller : await this.controllerBehind(this.o.log)) : undefined;
    return { stuck, controller };
  }

  /** The chain's diagnosis, with the controller behind a custom resource. */
  private async full(): Promise<Diagnosed> {
    const { kube, session, target, metrics, stallMs, timeoutMs } = this.o;
    return diagnoseChainWithController(kube, session.caches(), target, {
      graceMs: Math.min(DEFAULT_GRACE_MS, stallMs ?? timeoutMs / 2),
      scrapes: await metrics?.sinceBaseline(session.signal),
      foundBy: metrics?.foundBy,
      noMetrics: this.o.noMetrics,
      signal: session.signal,
      readiness: session.tracer.readiness,
    });
  }

  private show(diagnosis: Diagnosis, why: string, ended = false): void {
    for (const fn of this.toScreen) fn({ diagnosis, why, ended });
  }

  private failed(err: unknown): undefined {
    this.o.log(`warning: no diagnosis: ${(err as Error).message}`);
    return undefined;
  }

  /** The operator behind a custom resource; a failure to find it is said, not fatal. */
  private async controllerBehind(log: (line: string) => void): Promise<ControllerBehind | undefined> {
    const { kube, session, target, metrics } = this.o;
    const signal = AbortSignal.timeout(CONTROLLER_LOOKUP_MS);
    try {
      const scrapes = await metrics?.sinceBaseline(signal);
      return (
        await readControllerBehind(kube, target.info, chainFromCaches(session.caches(), target).object, {
          scrapes,
          foundBy: metrics?.foundBy,
          noMetrics: this.o.noMetrics,
          signal,
        })
      ).behind;
    } catch (err) {
      log(`warning: the controller behind ${target.info.kind}/${target.name} could not be read: ${(err as Error).message}`);
      return undefined;
    }
  }

  /**
   * A custom resource whose status nobody has written within the settle time: its readiness is
   * unknown until a controller writes one, said once with how to define it, and the trace goes on.
   */
  private noteUnknownReadiness(): void {
    const { session, target, settleMs, log } = this.o;
    const timer = setTimeout(() => {
      if (session.snapshot().outcome !== undefined) return;
      const obj = chainFromCaches(session.caches(), target).object;
      if (!obj || Object.keys((obj.status ?? {}) as object).length > 0) return;
      log(
        `note: no controller has written the status of ${target.info.kind}/${target.name} within ${formatDuration(settleMs)}: its readiness is unknown until one does; if none ever will, say when it is ready with --ready EXPR or --health-rules FILE`,
      );
    }, settleMs);
    timer.unref();
    void session.ended.then(() => clearTimeout(timer));
  }
}
