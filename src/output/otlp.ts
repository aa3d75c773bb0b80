/**
 * A finished trace as OpenTelemetry spans, exported over OTLP/HTTP with the official SDK.
 *
 * One trace per reconcile-chain trace: a span per object of the chain, parented along the owner
 * chain (Deployment → ReplicaSet → Pod); the target's span is the root and carries the trigger and
 * the outcome. Each hop is a span event at the time our informer received it, and each Kubernetes
 * Event that explains a hop is a span event too. An object's span runs from its first hop to its
 * last (the target's from the trigger to the end of the trace).
 *
 * Spans are made by the SDK's tracer and collected per trace, then handed to the exporter in one
 * call, so a failed export is known (and counted by the caller) instead of only logged.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { TracerProvider, type ReadableSpan, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace';
import type { OtlpTarget } from './otlp-target.js';
import type { Hop, ObjectRef, TraceSnapshot } from '../trace/index.js';
import { version } from '../version.js';

export { resolveOtlpTarget, type OtlpTarget } from './otlp-target.js';

/** Collects the spans of one trace as they end. */
class Collector implements SpanProcessor {
  spans: ReadableSpan[] = [];
  onStart(): void {}
  onEnd(span: ReadableSpan): void {
    this.spans.push(span);
  }
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

export interface TraceSpansOptions {
  /** service.name; OTEL_SERVICE_NAME overrides it. */
  serviceName: string;
  /** Resource attributes: the cluster, the workload (k8s.cluster.name, k8s.namespace.name, …). */
  resource: Attributes;
  exporter: SpanExporter;
  env?: NodeJS.ProcessEnv;
}

/**
 * The OpenTelemetry resource of a trace of one object: the cluster (the context's name unless
 * told), the object's namespace and its kind's name (`k8s.deployment.name`), and the API server.
 */
function k8sResource(
  kube: { connection: { contextName: string; server: string } },
  target: { kind: string; namespace?: string | undefined; name: string },
  clusterName?: string,
): Record<string, string> {
  return {
    'k8s.cluster.name': clusterName ?? kube.connection.contextName,
    ...(target.namespace ? { 'k8s.namespace.name': target.namespace } : {}),
    [`k8s.${target.kind.toLowerCase()}.name`]: target.name,
    'server.address': kube.connection.server,
  };
}

export class TraceSpanExporter {
  private readonly collector = new Collector();
  private readonly provider: TracerProvider;
  private readonly exporter: SpanExporter;

  constructor(options: TraceSpansOptions) {
    this.exporter = options.exporter;
    const serviceName = options.env?.OTEL_SERVICE_NAME || options.serviceName;
    this.provider = new TracerProvider({
      resource: resourceFromAttributes({ 'service.name': serviceName, 'service.version': version, ...options.resource }),
      spanProcessors: [this.collector],
    });
  }

  /** Over OTLP/HTTP (JSON) to `target`. */
  static otlp(target: OtlpTarget, options: Omit<TraceSpansOptions, 'exporter'> & { timeoutMs?: number }): TraceSpanExporter {
    const exporter = new OTLPTraceExporter({ url: target.url, headers: target.headers, timeoutMillis: options.timeoutMs ?? 10_000 });
    return new TraceSpanExporter({ ...options, exporter });
  }

  /** Over OTLP/HTTP to `target`, the traces of one object, as a resource of its cluster (k8sResource). */
  static otlpOfObject(
    target: OtlpTarget,
    kube: { connection: { contextName: string; server: string } },
    object: { kind: string; namespace?: string | undefined; name: string },
    options: { serviceName: string; env: NodeJS.ProcessEnv; clusterName?: string | undefined },
  ): TraceSpanExporter {
    return TraceSpanExporter.otlp(target, { serviceName: options.serviceName, env: options.env, resource: k8sResource(kube, object, options.clusterName) });
  }

  /** The trace's spans, made and ended now (not exported). */
  spans(snap: TraceSnapshot, endedAt: number): ReadableSpan[] {
    this.collector.spans = [];
    buildSpans(this.provider, snap, endedAt);
    const out = this.collector.spans;
    this.collector.spans = [];
    return out;
  }

  /** Exports the trace; rejects with why the exporter refused or could not send it. */
  async export(snap: TraceSnapshot, endedAt: number): Promise<{ traceId: string; spans: number }> {
    const spans = this.spans(snap, endedAt);
    if (spans.length === 0) return { traceId: '', spans: 0 };
    await new Promise<void>((resolve, reject) => {
      this.exporter.export(spans, (result) => {
        if (result.code === ExportResultCode.SUCCESS) resolve();
        else reject(result.error ?? new Error('the OTLP exporter reported a failure'));
      });
    });
    return { traceId: spans[0]!.spanContext().traceId, spans: spans.length };
  }

  async shutdown(): Promise<void> {
    await this.provider.shutdown().catch(() => undefined);
    await this.exporter.shutdown().catch(() => undefined);
  }
}

function refKey(ref: ObjectRef): string {
  return ref.uid || `${ref.kind}/${ref.namespace ?? ''}/${ref.name}`;
}

function objectAttributes(ref: ObjectRef): Attributes {
  const kind = ref.kind.toLowerCase();
  return {
    'k8s.object.kind': ref.kind,
    [`k8s.${kind}.name`]: ref.name,
    ...(ref.uid ? { [`k8s.${kind}.uid`]: ref.uid } : {}),
    ...(ref.namespace ? { 'k8s.namespace.name': ref.namespace } : {}),
  };
}

function hopAttributes(h: Hop): Attributes {
  return {
    'informer_trace.hop.kind': h.kind,
    'informer_trace.hop.since_trigger_ms': h.sinceTriggerMs,
    'informer_trace.hop.since_previous_ms': h.sincePreviousMs,
    ...(h.detail ? { 'informer_trace.hop.detail': h.detail } : {}),
    ...(h.serverTime ? { 'informer_trace.hop.server_time': h.serverTime } : {}),
    ...(h.serverTimeSource ? { 'informer_trace.hop.server_time_source': h.serverTimeSource } : {}),
    ...(h.seenBeforeCause ? { 'informer_trace.hop.seen_before_cause': true } : {}),
  };
}

interface ObjectSpan {
  ref: ObjectRef;
  owner: ObjectRef | undefined;
  hops: Hop[];
}

/** The spans of one trace, parents before children, each ended at its object's last hop. */
function buildSpans(provider: TracerProvider, snap: TraceSnapshot, endedAt: number): void {
  const tracer = provider.getTracer('kubectl-informer-trace', version);
  const objects = new Map<string, ObjectSpan>();
  for (const h of snap.hops) {
    const key = refKey(h.object);
    const o = objects.get(key) ?? { ref: h.object, owner: undefined, hops: [] };
    o.owner ??= h.owner;
    o.hops.push(h);
    objects.set(key, o);
  }
  // An owner with no hop of its own in this trace (an old ReplicaSet whose Pods were seen going)
  // still gets its span, over its children's hops, so the owner chain stays whole.
  for (const o of [...objects.values()]) {
    if (!o.owner || objects.has(refKey(o.owner))) continue;
    const isTarget = o.owner.kind === snap.target.kind && o.owner.name === snap.target.name;
    if (!isTarget) objects.set(refKey(o.owner), { ref: o.owner, owner: undefined, hops: [] });
  }
  const targetKey = [...objects.values()].find(
    (o) => o.ref.kind === snap.target.kind && o.ref.name === snap.target.name && (o.ref.namespace ?? '') === (snap.target.namespace ?? ''),
  );
  const start = snap.trigger?.at ?? Math.min(...snap.hops.map((h) => h.observedAt), endedAt);
  const rootRef: ObjectRef = targetKey?.ref ?? { kind: snap.target.kind, namespace: snap.target.namespace, name: snap.target.name, uid: '' };
  const failed = snap.outcome === 'timeout' || snap.outcome === 'failed';
  const converged = snap.hops.find((h) => h.kind === 'converged');
  const root = tracer.startSpan(
    `${rootRef.kind}/${rootRef.name}`,
    {
      root: true,
      kind: SpanKind.INTERNAL,
      startTime: start,
      attributes: {
        ...objectAttributes(rootRef),
        'informer_trace.outcome': snap.outcome ?? 'interrupted',
        ...(snap.endMessage ? { 'informer_trace.end_message': snap.endMessage } : {}),
        ...(snap.trigger ? { 'informer_trace.trigger.kind': snap.trigger.kind, 'informer_trace.trigger.wrote': snap.trigger.wrote } : {}),
        ...(snap.trigger?.resourceVersion ? { 'informer_trace.trigger.resource_version': snap.trigger.resourceVersion } : {}),
        ...(converged && snap.trigger ? { 'informer_trace.converge_ms': converged.observedAt - snap.trigger.at } : {}),
        'informer_trace.hops': snap.hops.length,
      },
    },
    ROOT_CONTEXT,
  );
  if (snap.trigger)
    root.addEvent('trigger', { 'informer_trace.trigger.kind': snap.trigger.kind, 'informer_trace.trigger.wrote': snap.trigger.wrote }, snap.trigger.at);
  root.setStatus(failed ? { code: SpanStatusCode.ERROR, message: snap.endMessage ?? snap.outcome ?? '' } : { code: SpanStatusCode.OK });

  const spans = new Map<string, Span>();
  if (targetKey) spans.set(refKey(targetKey.ref), root);
  const addEvents = (span: Span, o: ObjectSpan): void => {
    for (const h of o.hops) {
      span.addEvent(h.kind, hopAttributes(h), h.observedAt);
      for (const e of h.events) {
        const t = e.time ? Date.parse(e.time) : NaN;
        span.addEvent(
          `k8s.event ${e.reason}`,
          {
            'k8s.event.reason': e.reason,
            'k8s.event.note': e.note,
            ...(e.reportingController ? { 'k8s.event.reporting_controller': e.reportingController } : {}),
            ...(e.count ? { 'k8s.event.count': e.count } : {}),
            'informer_trace.hop.kind': h.kind,
          },
          Number.isFinite(t) ? t : h.observedAt,
        );
      }
    }
  };
  // Parents first: an object's owner is either the target or an object made before it.
  const pending = [...objects.values()].filter((o) => o !== targetKey);
  const ended: [Span, number][] = [];
  while (pending.length > 0) {
    const i = pending.findIndex((o) => !o.owner || !objects.has(refKey(o.owner)) || spans.has(refKey(o.owner)));
    const o = pending.splice(i === -1 ? 0 : i, 1)[0]!;
    const parent = (o.owner && spans.get(refKey(o.owner))) || root;
    const times = (o.hops.length > 0 ? o.hops : [...objects.values()].filter((c) => c.owner && refKey(c.owner) === refKey(o.ref)).flatMap((c) => c.hops)).map(
      (h) => h.observedAt,
    );
    const first = Math.min(...times);
    const last = Math.max(...times);
    const span = tracer.startSpan(
      `${o.ref.kind}/${o.ref.name}`,
      { kind: SpanKind.INTERNAL, startTime: first, attributes: objectAttributes(o.ref) },
      trace.setSpanContext(ROOT_CONTEXT, parent.spanContext()),
    );
    spans.set(refKey(o.ref), span);
    addEvents(span, o);
    ended.push([span, last]);
  }
  if (targetKey) addEvents(root, targetKey);
  for (const [span, at] of ended) span.end(at);
  root.end(Math.max(endedAt, ...snap.hops.map((h) => h.observedAt)));
}
