import { afterEach, describe, expect, it } from 'vitest';
import { startLoopbackServer, type LoopbackServer } from '../../tools/testing/http-server.js';
import { syntheticRollout, TRIGGER_AT } from '../../tools/testing/synthetic-trace.js';
import type { TraceSnapshot } from '../trace/index.js';
import { resolveOtlpTarget, TraceSpanExporter } from './otlp.js';

function snapshot(): TraceSnapshot {
  const s = syntheticRollout(2);
  const hops = s.hops.map((h) =>
    h.kind === 'created' && h.object.kind === 'Pod'
      ? {
          ...h,
          events: [
            {
              uid: 'e1',
              reason: 'SuccessfulCreate',
              note: `Created pod: ${h.object.name}`,
              time: new Date(h.observedAt - 400).toISOString(),
              reportingController: 'replicaset-controller',
            },
          ],
        }
      : h,
  );
  return {
    ...s,
    hops,
    trigger: { kind: 'restart', wrote: 'restarted deployments.apps/web in demo', at: TRIGGER_AT, writes: 1, resourceVersion: '1000' },
    outcome: 'converged',
    endMessage: undefined,
    informers: [],
    queue: undefined,
    reconciles: 0,
    targetWatchEvents: 0,
    burst: undefined,
  };
}

describe('resolveOtlpTarget', () => {
  it('adds /v1/traces to a base endpoint, takes the traces variable as it is, the flag first', () => {
    expect(resolveOtlpTarget('http://jaeger:4318', {})?.url).toBe('http://jaeger:4318/v1/traces');
    expect(resolveOtlpTarget('http://jaeger:4318/v1/traces', {})?.url).toBe('http://jaeger:4318/v1/traces');
    expect(resolveOtlpTarget(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel:4318/' })?.url).toBe('https://otel:4318/v1/traces');
    expect(resolveOtlpTarget(undefined, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://a:1/custom', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://b:2' })?.url).toBe(
      'http://a:1/custom',
    );
    expect(resolveOtlpTarget('http://c:3', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://b:2' })?.url).toBe('http://c:3/v1/traces');
    expect(resolveOtlpTarget(undefined, {})).toBeUndefined();
    expect(resolveOtlpTarget('http://x:1', { OTEL_EXPORTER_OTLP_HEADERS: 'a=1,b=x%20y', OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'a=2' })?.headers).toEqual({
      a: '2',
      b: 'x y',
    });
  });

  it('refuses what is not an http(s) URL, in one line', () => {
    expect(() => resolveOtlpTarget('jaeger:4318', {})).toThrow(/must use http:\/\/ or https:\/\//);
    expect(() => resolveOtlpTarget('not a url', {})).toThrow(/--otlp-endpoint: "not a url\/v1\/traces" is not a URL/);
  });
});

describe('TraceSpanExporter', () => {
  let server: LoopbackServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('makes one trace: a span per object, parented along the owner chain, hops and Events as span events at their times', async () => {
    const exporter = new TraceSpanExporter({
      serviceName: 'svc',
      resource: { 'k8s.cluster.name': 'c1' },
      exporter: { export: (_s, cb) => cb({ code: 0 }), shutdown: async () => {} },
    });
    const snap = snapshot();
    const end = TRIGGER_AT + 10_000;
    const spans = exporter.spans(snap, end);
    const byName = new Map(spans.map((s) => [s.name, s]));
    expect([...byName.keys()].sort()).toEqual([
      'Deployment/web',
      'Pod/web-new-0',
      'Pod/web-new-1',
      'Pod/web-old-0',
      'Pod/web-old-1',
      'ReplicaSet/web-new',
      'ReplicaSet/web-old',
    ]);
    const traceIds = new Set(spans.map((s) => s.spanContext().traceId));
    expect(traceIds.size).toBe(1);
    const root = byName.get('Deployment/web')!;
    expect(root.parentSpanContext).toBeUndefined();
    const id = (n: string): string => byName.get(n)!.spanContext().spanId;
    expect(byName.get('ReplicaSet/web-new')!.parentSpanContext?.spanId).toBe(id('Deployment/web'));
    expect(byName.get('Pod/web-new-1')!.parentSpanContext?.spanId).toBe(id('ReplicaSet/web-new'));
    expect(byName.get('Pod/web-old-0')!.parentSpanContext?.spanId).toBe(id('ReplicaSet/web-old'));
    const ms = (t: [number, number]): number => t[0] * 1000 + t[1] / 1e6;
    expect(ms(root.startTime)).toBe(TRIGGER_AT);
    expect(ms(root.endTime)).toBe(end);
    expect(root.attributes['informer_trace.outcome']).toBe('converged');
    expect(root.resource.attributes['k8s.cluster.name']).toBe('c1');
    expect(root.resource.attributes['service.name']).toBe('svc');
    const pod = byName.get('Pod/web-new-0')!;
    const podHops = snap.hops.filter((h) => h.object.name === 'web-new-0');
    expect(ms(pod.startTime)).toBeCloseTo(podHops[0]!.observedAt, 3);
    expect(ms(pod.endTime)).toBeCloseTo(podHops.at(-1)!.observedAt, 3);
    expect(pod.events.filter((e) => !e.name.startsWith('k8s.event')).map((e) => e.name)).toEqual([
      'created',
      'scheduled',
      'initialized',
      'containers-ready',
      'ready',
    ]);
    const event = pod.events.find((e) => e.name === 'k8s.event SuccessfulCreate')!;
    expect(event.attributes?.['k8s.event.note']).toBe('Created pod: web-new-0');
    expect(ms(event.time)).toBeCloseTo(podHops[0]!.observedAt - 400, 0);
  });

  it("gives an owner with no hop of its own a span over its children's hops, so each Pod still hangs under its ReplicaSet", () => {
    const exporter = new TraceSpanExporter({ serviceName: 'svc', resource: {}, exporter: { export: (_s, cb) => cb({ code: 0 }), shutdown: async () => {} } });
    const snap = snapshot();
    const hops = snap.hops.filter((h) => h.object.name !== 'web-old');
    const spans = exporter.spans({ ...snap, hops }, TRIGGER_AT + 10_000);
    const byName = new Map(spans.map((s) => [s.name, s]));
    const old = byName.get('ReplicaSet/web-old')!;
    expect(old.parentSpanContext?.spanId).toBe(byName.get('Deployment/web')!.spanContext().spanId);
    expect(byName.get('Pod/web-old-0')!.parentSpanContext?.spanId).toBe(old.spanContext().spanId);
    const ms = (t: [number, number]): number => t[0] * 1000 + t[1] / 1e6;
    const podTimes = hops.filter((h) => h.object.name.startsWith('web-old-')).map((h) => h.observedAt);
    expect(ms(old.startTime)).toBeCloseTo(Math.min(...podTimes), 3);
    expect(ms(old.endTime)).toBeCloseTo(Math.max(...podTimes), 3);
  });

  it('sends OTLP/HTTP JSON to the endpoint, and rejects when the endpoint refuses or is not there', async () => {
    const bodies: { url: string; body: unknown }[] = [];
    let status = 200;
    server = await startLoopbackServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        bodies.push({ url: req.url ?? '', body: JSON.parse(text) });
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end('{}');
      });
    });
    const exporter = TraceSpanExporter.otlp(resolveOtlpTarget(server.base, {})!, { serviceName: 'svc', resource: {}, timeoutMs: 2_000 });
    const sent = await exporter.export(snapshot(), TRIGGER_AT + 10_000);
    expect(sent.spans).toBe(7);
    expect(bodies[0]!.url).toBe('/v1/traces');
    const json = bodies[0]!.body as { resourceSpans: { scopeSpans: { spans: { traceId: string; name: string }[] }[] }[] };
    const spans = json.resourceSpans[0]!.scopeSpans[0]!.spans;
    expect(spans).toHaveLength(7);
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([sent.traceId]));

    status = 400;
    await expect(exporter.export(snapshot(), TRIGGER_AT + 10_000)).rejects.toThrow();
    const gone = server.base;
    await server.close();
    server = undefined;
    const unreachable = TraceSpanExporter.otlp(resolveOtlpTarget(gone, {})!, { serviceName: 'svc', resource: {}, timeoutMs: 2_000 });
    await expect(unreachable.export(snapshot(), TRIGGER_AT + 10_000)).rejects.toThrow();
    await exporter.shutdown();
    await unreachable.shutdown();
  });
});
