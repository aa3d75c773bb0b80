/**
 * The probe's Prometheus metrics, with prom-client on a registry of its own:
 *
 * - informer_trace_probe_converge_seconds: trigger to converged, per round that converged.
 * - informer_trace_probe_hop_seconds{hop}: each hop's time since the hop it follows from.
 * - informer_trace_probe_rounds_total{outcome="converged|timeout|failed"}.
 * - informer_trace_probe_diagnosis{verdict,link}: 1 for the last round's diagnosis, where it was
 *   stuck (link "none" when healthy).
 * - informer_trace_probe_lease_renew_age_seconds / _lease_transitions{namespace,name}: the
 *   controllers' leader Leases, judged as client-go's candidates judge them.
 * - informer_trace_probe_export_failures_total{exporter}: traces that could not be exported.
 * - Our own machinery under client-go's names: workqueue_* {name} (the tracer's queue, counted
 *   across rounds) and reflector_lists_total / reflector_watches_total {name} (the informers).
 * - client-go's informer metrics (1.36, k8s.io/component-base metrics/prometheus/clientgo/fifo),
 *   labelled name, group, version, resource: informer_queued_items (gauge: keys in the FIFO),
 *   informer_store_resource_version (gauge: the 15 least significant digits of the store's
 *   resourceVersion) and informer_processing_latency_seconds (histogram, client-go's buckets: the
 *   time a popped item took to process). The informers the rounds share, and the leader-Lease
 *   informer, are read as they are at each scrape; those the probe let go (after a failed round)
 *   count on under their names, and the gauges hold the last value seen.
 * - informer_trace_probe_watch_stalls_total{name}: watches of our informers given up because their
 *   connection stopped delivering while it stayed open (half-open, a hung API server); client-go
 *   has no such counter.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Diagnosis } from '../diagnose/index.js';
import { emptyLatencyHistogram, PROCESSING_LATENCY_BUCKETS, storeResourceVersionValue, type InformerStats, type LatencyHistogram } from '../informer/index.js';
import type { LeaseSnapshot } from '../lease/index.js';
import type { TraceOutcome, TraceSnapshot } from '../trace/index.js';
import { InMemoryMetricsProvider } from '../workqueue/index.js';

export type RoundOutcome = 'converged' | 'timeout' | 'failed';

/** A trace's outcome as a round's: a metadata-only change that needed no rollout converged too. */
export function roundOutcome(outcome: TraceOutcome | undefined): RoundOutcome | undefined {
  switch (outcome) {
    case 'converged':
    case 'no-rollout':
      return 'converged';
    case 'timeout':
      return 'timeout';
    case 'failed':
    case 'deleted':
      return 'failed';
    default:
      // Interrupted: a round abandoned at shutdown is not a result.
      return undefined;
  }
}

const CONVERGE_BUCKETS = [0.5, 1, 2, 3, 5, 10, 20, 30, 60, 120, 300, 600];
const HOP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export class ProbeMetrics {
  readonly registry = new Registry();
  /** The tracer's workqueue metrics, shared by every round's tracer so they count on. */
  readonly workqueue = new InMemoryMetricsProvider();
  private readonly converge: Histogram;
  private readonly hop: Histogram<'hop'>;
  private readonly rounds: Counter<'outcome'>;
  private readonly exportFailures: Counter<'exporter'>;
  private readonly diagnosis: Gauge<'verdict' | 'link'>;
  private leases: () => LeaseSnapshot[] = () => [];
  private liveInformers: () => InformerStats[] = () => [];
  /** Per informer (by its label set): the values of the informers let go. */
  private readonly informerSeries = new Map<string, InformerSeries>();
  /** Per informer name: the reflector counts of the informers let go. */
  private readonly retiredCounts = new Map<string, ReflectorCounts>();

  constructor() {
    const registers = [this.registry];
    this.converge = new Histogram({
      name: 'informer_trace_probe_converge_seconds',
      help: 'Time from the probe’s write to the canary converged, per round that converged.',
      buckets: CONVERGE_BUCKETS,
      registers,
    });
    this.hop = new Histogram({
      name: 'informer_trace_probe_hop_seconds',
      help: 'Time of each hop of the reconcile chain since the hop it follows from, by hop kind.',
      labelNames: ['hop'],
      buckets: HOP_BUCKETS,
      registers,
    });
    this.rounds = new Counter({ name: 'informer_trace_probe_rounds_total', help: 'Probe rounds by outcome.', labelNames: ['outcome'], registers });
    for (const outcome of ['converged', 'timeout', 'failed']) this.rounds.inc({ outcome }, 0);
    this.exportFailures = new Counter({
      name: 'informer_trace_probe_export_failures_total',
      help: 'Round traces that could not be exported.',
      labelNames: ['exporter'],
      registers,
    });
    this.exportFailures.inc({ exporter: 'otlp' }, 0);
    this.diagnosis = new Gauge({
      name: 'informer_trace_probe_diagnosis',
      help: 'The last round’s diagnosis: 1 for its verdict and the first broken link ("none" when healthy).',
      labelNames: ['verdict', 'link'],
      registers,
    });
    const leases = (): LeaseSnapshot[] => this.leases();
    new Gauge({
      name: 'informer_trace_probe_lease_renew_age_seconds',
      help: 'Time since the leader Lease’s record last changed, as the probe received it.',
      labelNames: ['namespace', 'name'],
      registers,
      collect() {
        this.reset();
        for (const l of leases()) this.set({ namespace: l.namespace, name: l.name }, l.renewAgeMs / 1000);
      },
    });
    new Gauge({
      name: 'informer_trace_probe_lease_transitions',
      help: 'The leader Lease’s leaseTransitions.',
      labelNames: ['namespace', 'name'],
      registers,
      collect() {
        this.reset();
        for (const l of leases()) this.set({ namespace: l.namespace, name: l.name }, l.transitions);
      },
    });
    // Counters read at each scrape: the informers let go, plus the live ones as they are.
    const reflectorCounter = (name: string, help: string, pick: (c: ReflectorCounts) => number): void => {
      const counter: Counter<'name'> = new Counter({
        name,
        help,
        labelNames: ['name'],
        registers,
        collect: () => {
          counter.reset();
          for (const [informer, c] of this.reflectorCounts()) if (pick(c) > 0) counter.inc({ name: informer }, pick(c));
        },
      });
    };
    reflectorCounter('reflector_lists_total', 'Total number of API lists done by the reflectors', (c) => c.lists);
    reflectorCounter('reflector_watches_total', 'Total number of API watches done by the reflectors', (c) => c.watches);
    reflectorCounter(
      'informer_trace_probe_watch_stalls_total',
      'Watches given up because their connection stopped delivering while it stayed open (a half-open connection or a hung API server).',
      (c) => c.watchStalls,
    );
  }

  /** Where the Lease gauges read from. */
  setLeaseSource(fn: () => LeaseSnapshot[]): void {
    this.leases = fn;
  }

  /** The informers running now (read at each scrape). */
  setInformerSource(fn: () => InformerStats[]): void {
    this.liveInformers = fn;
  }

  /** One finished round: its outcome, and for a converged one its times. */
  recordRound(outcome: RoundOutcome, snap: TraceSnapshot | undefined): void {
    this.rounds.inc({ outcome });
    if (!snap) return;
    for (const h of snap.hops) this.hop.observe({ hop: h.kind }, h.sincePreviousMs / 1000);
    const converged = snap.hops.find((h) => h.kind === 'converged');
    if (outcome === 'converged' && converged && snap.trigger) this.converge.observe((converged.observedAt - snap.trigger.at) / 1000);
  }

  /** Informers let go (a failed round's pool): their values count on under their names. */
  recordInformers(stats: readonly InformerStats[]): void {
    for (const s of stats) {
      this.retiredCounts.set(s.name, addCounts(this.retiredCounts.get(s.name) ?? NO_COUNTS, s));
      const series = this.series(s);
      series.queued = s.queued;
      series.storeResourceVersion = storeResourceVersionValue(s.storeResourceVersion);
      addLatency(series.latency, s.processingLatency);
    }
  }

  private reflectorCounts(): Map<string, ReflectorCounts> {
    // addCounts makes a new record: the retired ones are not changed.
    const all = new Map(this.retiredCounts);
    for (const s of this.liveInformers()) all.set(s.name, addCounts(all.get(s.name) ?? NO_COUNTS, s));
    return all;
  }

  private series(s: InformerStats): InformerSeries {
    const labels = { name: s.name, group: s.group, version: s.version, resource: s.resource };
    const key = JSON.stringify(labels);
    let series = this.informerSeries.get(key);
    if (!series) {
      series = { labels, queued: 0, storeResourceVersion: 0, latency: emptyLatencyHistogram() };
      this.informerSeries.set(key, series);
    }
    return series;
  }

  /** The client-go informer families: the informers let go, plus the live ones as they are now. */
  renderInformers(): string {
    const all = new Map<string, InformerSeries>();
    for (const [k, v] of this.informerSeries) all.set(k, { ...v, latency: { ...v.latency, counts: [...v.latency.counts] } });
    for (const s of this.liveInformers()) {
      const labels = { name: s.name, group: s.group, version: s.version, resource: s.resource };
      const key = JSON.stringify(labels);
      const base = all.get(key) ?? { labels, queued: 0, storeResourceVersion: 0, latency: emptyLatencyHistogram() };
      base.queued = s.queued;
      base.storeResourceVersion = storeResourceVersionValue(s.storeResourceVersion);
      addLatency(base.latency, s.processingLatency);
      all.set(key, base);
    }
    if (all.size === 0) return '';
    const series = [...all.values()];
    const out: string[] = [
      '# HELP informer_queued_items Number of items currently queued in the FIFO.',
      '# TYPE informer_queued_items gauge',
      ...series.map((s) => `informer_queued_items${labelText(s.labels)} ${s.queued}`),
      '# HELP informer_store_resource_version The 15 least significant digits of the resource version of the store.',
      '# TYPE informer_store_resource_version gauge',
      ...series.map((s) => `informer_store_resource_version${labelText(s.labels)} ${s.storeResourceVersion}`),
      '# HELP informer_processing_latency_seconds Time taken to process events after popping from the queue.',
      '# TYPE informer_processing_latency_seconds histogram',
    ];
    for (const s of series) {
      let cumulative = 0;
      PROCESSING_LATENCY_BUCKETS.forEach((le, i) => {
        cumulative += s.latency.counts[i] ?? 0;
        out.push(`informer_processing_latency_seconds_bucket${labelText(s.labels, `le="${le}"`)} ${cumulative}`);
      });
      out.push(`informer_processing_latency_seconds_bucket${labelText(s.labels, 'le="+Inf"')} ${s.latency.count}`);
      out.push(`informer_processing_latency_seconds_sum${labelText(s.labels)} ${s.latency.sum}`);
      out.push(`informer_processing_latency_seconds_count${labelText(s.labels)} ${s.latency.count}`);
    }
    return `${out.join('\n')}\n`;
  }

  recordDiagnosis(d: Diagnosis): void {
    this.diagnosis.reset();
    this.diagnosis.set({ verdict: d.verdict, link: d.link ?? 'none' }, 1);
  }

  exportFailed(exporter = 'otlp'): void {
    this.exportFailures.inc({ exporter });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The Prometheus text exposition: prom-client's families, then the workqueue's. */
  async render(): Promise<string> {
    const ours = await this.registry.metrics();
    const queues = this.workqueue.renderPrometheus();
    return `${ours.endsWith('\n') || ours === '' ? ours : `${ours}\n`}${queues}${this.renderInformers()}`;
  }
}

type ReflectorCounts = Pick<InformerStats, 'lists' | 'watches' | 'watchStalls'>;

const NO_COUNTS: ReflectorCounts = { lists: 0, watches: 0, watchStalls: 0 };

function addCounts(into: ReflectorCounts, s: ReflectorCounts): ReflectorCounts {
  return { lists: into.lists + s.lists, watches: into.watches + s.watches, watchStalls: into.watchStalls + s.watchStalls };
}

interface InformerSeries {
  labels: { name: string; group: string; version: string; resource: string };
  queued: number;
  storeResourceVersion: number;
  latency: LatencyHistogram;
}

function addLatency(into: LatencyHistogram, h: LatencyHistogram): void {
  for (const [i, c] of h.counts.entries()) into.counts[i] = (into.counts[i] ?? 0) + c;
  into.sum += h.sum;
  into.count += h.count;
}

/** `{name="…",group="…",…}` with the exposition format's escapes (backslash, quote, newline). */
function labelText(labels: Record<string, string>, extra?: string): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`);
  if (extra) parts.push(extra);
  return `{${parts.join(',')}}`;
}
