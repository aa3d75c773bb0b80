/**
 * `kubectl informer-trace probe` as it runs in a pod: a process with no kubeconfig, only the
 * in-cluster environment (KUBERNETES_SERVICE_HOST/PORT and a service account folder holding a
 * token the API server issued for the ServiceAccount of deploy/probe/rbac.yaml, the cluster's CA
 * and the namespace). Against the local control plane with kwok nodes it runs rounds on its
 * canary; its /metrics is checked with the project's Prometheus text parser; a real Jaeger
 * all-in-one (built by scripts/build-jaeger.sh) receives the rounds over OTLP/HTTP and they are
 * read back through Jaeger's query API.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { freePorts } from '../../tools/cluster/ports.js';
import { ObjectWriter, type Kube, type KubeObject } from '../../src/kube/index.js';
import { parseExposition, type MetricFamily } from '../../src/metrics/parse.js';
import { CANARY_LABEL, DEFAULT_CANARY_NAME } from '../../src/probe/canary.js';
import { createInformerTraceProgram } from '../../src/commands/informer-trace.js';
import { adminKube, cluster, clusterHealthy, createWorkloadNamespace, deleteNamespace, deploymentAvailable, eventually, runCli } from './helpers.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const run = promisify(execFile);
const SA = 'informer-trace-probe';
const DEPLOY_NS = 'informer-trace-probe';

interface ProbeProcess {
  child: ChildProcess;
  stderr: () => string;
  exited: Promise<number | null>;
  metricsUrl: string;
}

/** Waits for a stderr line of the probe matching `pattern`; fails with its stderr if it exits first. */
async function line(p: ProbeProcess, pattern: RegExp, timeoutMs = 120_000): Promise<RegExpExecArray> {
  let code: number | null | undefined;
  void p.exited.then((c) => (code = c));
  const found = await eventually(
    `a probe stderr line matching ${pattern}`,
    async () => {
      for (const l of p.stderr().split('\n')) {
        const m = pattern.exec(l);
        if (m) return m;
      }
      return code !== undefined ? null : undefined;
    },
    timeoutMs,
    50,
  ).catch((err: Error) => {
    throw new Error(`${err.message}\nprobe stderr:\n${p.stderr()}`);
  });
  if (found === null) throw new Error(`the probe exited (${String(code)}) without a line matching ${pattern}:\n${p.stderr()}`);
  return found;
}

/** Starts the probe as a pod runs it (the service account in saDir), or with `kubeconfig` when given. */
async function startProbe(saDir: string, args: string[], kubeconfig?: string): Promise<ProbeProcess> {
  const child = spawn(process.execPath, [join(root, 'bin', 'kubectl-informer_trace'), 'probe', '--listen', '127.0.0.1:0', ...args], {
    cwd: saDir,
    // What a pod has: the service address and the mounted service account; no kubeconfig anywhere.
    env: kubeconfig
      ? { PATH: process.env.PATH ?? '', HOME: saDir, KUBECONFIG: kubeconfig }
      : {
          PATH: process.env.PATH ?? '',
          HOME: saDir,
          KUBERNETES_SERVICE_HOST: '127.0.0.1',
          KUBERNETES_SERVICE_PORT: String(cluster().ports.apiserver),
          INFORMER_TRACE_SERVICEACCOUNT_DIR: saDir,
        },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  child.stdout!.resume();
  // Once its stderr is read to the end too ('exit' may come before the last of it).
  const exited = new Promise<number | null>((res) => child.once('close', (code) => res(code)));
  const p: ProbeProcess = { child, stderr: () => err, exited, metricsUrl: '' };
  const m = await line(p, /serving \/metrics, \/healthz and \/readyz on (http:\/\/\S+)/, 30_000);
  p.metricsUrl = m[1]!;
  return p;
}

async function stopProbe(p: ProbeProcess): Promise<number | null> {
  if (p.child.exitCode !== null) return p.child.exitCode;
  p.child.kill('SIGTERM');
  return p.exited;
}

async function scrape(url: string): Promise<Map<string, MetricFamily>> {
  const res = await fetch(`${url}/metrics`);
  expect(res.status).toBe(200);
  const exposition = parseExposition(await res.text(), { format: 'prometheus' });
  return new Map(exposition.families.map((f) => [f.name, f]));
}

function sample(families: Map<string, MetricFamily>, name: string, labels: Record<string, string> = {}, suffix = ''): number | undefined {
  const f = families.get(name);
  const s = f?.samples.find((x) => x.name === `${name}${suffix}` && Object.entries(labels).every(([k, v]) => x.labels[k] === v));
  return s?.value;
}

/** deploy/probe/rbac.yaml with the probe's namespace swapped for the test's, applied server-side. */
async function applyRbac(kube: Kube, namespace: string): Promise<KubeObject[]> {
  const docs = parseAllDocuments(readFileSync(join(root, 'deploy', 'probe', 'rbac.yaml'), 'utf8')).map(
    (d) => d.toJSON() as KubeObject & { subjects?: { namespace?: string }[] },
  );
  const writer = new ObjectWriter(kube.client);
  for (const obj of docs) {
    if (obj.metadata.namespace === DEPLOY_NS) obj.metadata.namespace = namespace;
    for (const s of obj.subjects ?? []) if (s.namespace === DEPLOY_NS) s.namespace = namespace;
    const info = await kube.discovery.forKind(obj.apiVersion!, obj.kind!);
    if (!info) throw new Error(`the server does not serve ${obj.kind}`);
    await writer.apply(info, obj.metadata.namespace, obj.metadata.name!, obj, 'probe-e2e');
  }
  return docs;
}

interface JaegerSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  references: { refType: string; spanID: string }[];
  logs: { fields: { key: string; value: unknown }[] }[];
}

describe('kubectl informer-trace probe, in-cluster', () => {
  const kube = adminKube();
  const namespace = `probe-e2e-${Date.now().toString(36)}`;
  const saDir = mkdtempSync(join(tmpdir(), 'informer-trace-probe-sa-'));
  const jaegerDir = mkdtempSync(join(tmpdir(), 'informer-trace-jaeger-'));
  let rbac: KubeObject[] = [];
  let jaeger: ChildProcess | undefined;
  let jaegerLog = '';
  let otlpPort = 0;
  let queryPort = 0;
  const probes: ProbeProcess[] = [];

  beforeAll(async () => {
    // Jaeger is built once and cached; a cached build answers at once.
    const built = run('bash', [join(root, 'scripts', 'build-jaeger.sh')], { cwd: root, timeout: 30 * 60_000 });
    await createWorkloadNamespace(kube, namespace);
    rbac = await applyRbac(kube, namespace);
    const token = await kube.client.json<{ status: { token: string } }>(`/api/v1/namespaces/${namespace}/serviceaccounts/${SA}/token`, {
      method: 'POST',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
    });
    writeFileSync(join(saDir, 'token'), token.status.token);
    copyFileSync(join(cluster().dir, 'pki', 'ca.crt'), join(saDir, 'ca.crt'));
    writeFileSync(join(saDir, 'namespace'), namespace);

    const jaegerBin = (await built).stdout.trim();
    const [otlp, query, queryGrpc, health] = (await freePorts(4)) as [number, number, number, number];
    otlpPort = otlp;
    queryPort = query;
    const config = join(jaegerDir, 'config.yaml');
    writeFileSync(
      config,
      [
        'service:',
        '  extensions: [jaeger_storage, jaeger_query, healthcheckv2]',
        '  pipelines:',
        '    traces:',
        '      receivers: [otlp]',
        '      processors: [batch]',
        '      exporters: [jaeger_storage_exporter]',
        '  telemetry:',
        '    metrics:',
        '      level: none',
        'extensions:',
        '  healthcheckv2:',
        '    use_v2: true',
        `    http: { endpoint: "127.0.0.1:${health}" }`,
        '  jaeger_query:',
        '    storage: { traces: memstore }',
        `    http: { endpoint: "127.0.0.1:${query}" }`,
        `    grpc: { endpoint: "127.0.0.1:${queryGrpc}" }`,
        '  jaeger_storage:',
        '    backends:',
        '      memstore: { memory: { max_traces: 10000 } }',
        'receivers:',
        '  otlp:',
        '    protocols:',
        `      http: { endpoint: "127.0.0.1:${otlp}" }`,
        'processors:',
        '  batch: { timeout: 200ms }',
        'exporters:',
        '  jaeger_storage_exporter: { trace_storage: memstore }',
        '',
      ].join('\n'),
    );
    jaeger = spawn(jaegerBin, ['--config', config], { stdio: ['ignore', 'pipe', 'pipe'] });
    jaeger.stdout!.on('data', (c: Buffer) => (jaegerLog += c.toString()));
    jaeger.stderr!.on('data', (c: Buffer) => (jaegerLog += c.toString()));
    await eventually('Jaeger query API', async () => (await fetch(`http://127.0.0.1:${query}/api/services`)).ok, 60_000).catch((err: Error) => {
      throw new Error(`${err.message}\njaeger log:\n${jaegerLog}`);
    });
  }, 40 * 60_000);

  afterAll(async () => {
    for (const p of probes) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    // A test that failed half-way may have left the API server or a controller stopped.
    if (!cluster().pid('kube-apiserver')) await cluster().startApiServer();
    for (const name of ['kube-controller-manager', 'kube-scheduler'] as const) {
      if (!cluster().pid(name)) await cluster().startComponentAgain(name);
    }
    if (jaeger && jaeger.exitCode === null) {
      const gone = new Promise((r) => jaeger!.once('exit', r));
      jaeger.kill('SIGTERM');
      await gone;
    }
    await deleteNamespace(kube, namespace);
    // The cluster-wide and kube-system parts of the RBAC are not removed with the namespace.
    const writer = (o: KubeObject) => kube.discovery.forKind(o.apiVersion!, o.kind!);
    for (const obj of rbac.filter((o) => o.metadata.namespace !== namespace)) {
      const info = await writer(obj);
      if (!info) continue;
      const ns = info.namespaced ? `/namespaces/${obj.metadata.namespace}` : '';
      await kube.client.json(`/apis/${info.group}/${info.version}${ns}/${info.resource}/${obj.metadata.name}`, { method: 'DELETE' }).catch(() => undefined);
    }
    rmSync(saDir, { recursive: true, force: true });
    rmSync(jaegerDir, { recursive: true, force: true });
    await clusterHealthy(kube, []);
  }, 180_000);

  it('probes an existing Deployment with --target, scaling it; an unreachable OTLP endpoint is counted, the rounds go on', async () => {
    const writer = new ObjectWriter(kube.client);
    const deployments = await kube.discovery.resolve('deployments.apps');
    await writer.apply(
      deployments,
      namespace,
      'web',
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'registry.k8s.io/pause:3.10' }] } },
        },
      } as KubeObject,
      'probe-e2e',
    );
    await deploymentAvailable(kube, namespace, 'web', 1);
    const [closed] = await freePorts(1);
    const p = await startProbe(saDir, [
      '--target',
      'deploy/web',
      '--mode',
      'scale',
      '--sizes',
      '1,2',
      '--interval',
      '1s',
      '--timeout',
      '90s',
      '--otlp-endpoint',
      `http://127.0.0.1:${closed}`,
    ]);
    probes.push(p);
    // Its second line, which may come in a chunk of its own after the first.
    await line(p, /connected to \S+ \(in-cluster service account\)/);
    await line(p, /round 1: converged in \S+ \(\d+ hops\); trace export failed/);
    await line(p, /round 2: converged/);
    const families = await scrape(p.metricsUrl);
    expect(sample(families, 'informer_trace_probe_export_failures_total', { exporter: 'otlp' })).toBeGreaterThanOrEqual(1);
    expect(sample(families, 'informer_trace_probe_rounds_total', { outcome: 'converged' })).toBeGreaterThanOrEqual(2);
    const scaled = await writer.get(deployments, namespace, 'web');
    expect([1, 2]).toContain((scaled.spec as { replicas: number }).replicas);
    // The target is probed as it is: no canary is created next to it.
    const list = await kube.client.json<{ items: KubeObject[] }>(`/apis/apps/v1/namespaces/${namespace}/deployments`);
    expect(list.items.map((d) => d.metadata.name)).toEqual(['web']);
    expect(await stopProbe(p)).toBe(0);
    expect(p.stderr()).toMatch(/stopped after \d+ rounds?/);
  });

  it("exports the CLI's one-off trace with --otlp-endpoint: the same spans, under the CLI's service name", async () => {
    const r = await runCli(
      createInformerTraceProgram,
      ['deploy/web', '-n', namespace, '--restart', '-o', 'json', '--timeout', '90s', '--otlp-endpoint', `http://127.0.0.1:${otlpPort}`],
      {
        env: { KUBECONFIG: cluster().kubeconfigPath },
      },
    );
    expect(r.code, r.stderr).toBe(0);
    const m = /exported trace ([0-9a-f]{32}) \((\d+) spans\)/.exec(r.stderr);
    expect(m, r.stderr).not.toBeNull();
    const trace = await eventually(
      'the CLI trace in Jaeger',
      async () => {
        const res = await fetch(`http://127.0.0.1:${queryPort}/api/traces/${m![1]}`);
        return res.ok ? ((await res.json()) as { data: { spans: JaegerSpan[]; processes: Record<string, { serviceName: string }> }[] }).data[0] : undefined;
      },
      30_000,
    );
    expect(trace.spans).toHaveLength(Number(m![2]));
    expect(Object.values(trace.processes)[0]!.serviceName).toBe('kubectl-informer-trace');
    const root = trace.spans.filter((s) => !s.references.some((ref) => ref.refType === 'CHILD_OF'));
    expect(root.map((s) => s.operationName)).toEqual(['Deployment/web']);
  });

  it('owns a canary, serves Prometheus metrics and health, exports each round to Jaeger, and stops cleanly on SIGTERM', async () => {
    const p = await startProbe(saDir, [
      '--interval',
      '2s',
      '--timeout',
      '90s',
      '--shutdown-grace',
      '1s',
      '--otlp-endpoint',
      `http://127.0.0.1:${otlpPort}`,
      '--cluster-name',
      'e2e-local',
    ]);
    probes.push(p);
    await line(p, new RegExp(`created the canary Deployment/${DEFAULT_CANARY_NAME} in ${namespace}`));
    await line(p, /round 1: converged in \S+ \(\d+ hops\); trace [0-9a-f]{32} \(\d+ spans\) exported/);
    const second = await line(p, /round 2: converged in \S+ \(\d+ hops\); trace ([0-9a-f]{32}) \(\d+ spans\) exported/);
    const traceId = second[1]!;

    const canary = await kube.client.json<KubeObject>(`/apis/apps/v1/namespaces/${namespace}/deployments/${DEFAULT_CANARY_NAME}`);
    expect(canary.metadata.labels?.[CANARY_LABEL]).toBe('true');

    expect((await fetch(`${p.metricsUrl}/readyz`)).status).toBe(200);
    expect((await fetch(`${p.metricsUrl}/healthz`)).status).toBe(200);
    const text = await (await fetch(`${p.metricsUrl}/metrics`)).text();
    const families = await scrape(p.metricsUrl);
    expect(families.get('informer_trace_probe_converge_seconds')?.type).toBe('histogram');
    expect(families.get('informer_trace_probe_hop_seconds')?.type).toBe('histogram');
    expect(sample(families, 'informer_trace_probe_converge_seconds', {}, '_count')).toBeGreaterThanOrEqual(2);
    expect(sample(families, 'informer_trace_probe_converge_seconds', { le: '+Inf' }, '_bucket')).toBeGreaterThanOrEqual(2);
    for (const hop of ['created', 'scheduled', 'ready', 'converged'])
      expect(sample(families, 'informer_trace_probe_hop_seconds', { hop }, '_count'), hop).toBeGreaterThanOrEqual(2);
    expect(sample(families, 'informer_trace_probe_rounds_total', { outcome: 'converged' })).toBeGreaterThanOrEqual(2);
    expect(sample(families, 'informer_trace_probe_rounds_total', { outcome: 'timeout' })).toBe(0);
    expect(sample(families, 'informer_trace_probe_export_failures_total', { exporter: 'otlp' })).toBe(0);
    expect(sample(families, 'informer_trace_probe_diagnosis', { verdict: 'healthy', link: 'none' })).toBe(1);
    expect(
      sample(families, 'informer_trace_probe_lease_renew_age_seconds', { namespace: 'kube-system', name: 'kube-controller-manager' }),
    ).toBeGreaterThanOrEqual(0);
    expect(sample(families, 'informer_trace_probe_lease_transitions', { namespace: 'kube-system', name: 'kube-scheduler' })).toBeGreaterThanOrEqual(0);
    // Our own machinery, under client-go's names.
    expect(sample(families, 'workqueue_adds_total', { name: 'informer-trace' })).toBeGreaterThan(0);
    expect(families.get('workqueue_queue_duration_seconds')?.type).toBe('histogram');
    expect(sample(families, 'workqueue_depth', { name: 'informer-trace' })).toBeGreaterThanOrEqual(0);
    // The rounds share their informers: each kind of the chain was listed once, then watched, however many rounds ran.
    const lists = families.get('reflector_lists_total')?.samples ?? [];
    expect(lists.map((s) => s.labels.name).sort()).toEqual(expect.arrayContaining([expect.stringMatching(/^pods/), expect.stringMatching(/^replicasets/)]));
    for (const s of lists) expect(s.value, s.labels.name).toBe(1);
    expect(text).toMatch(/^# TYPE informer_trace_probe_converge_seconds histogram$/m);

    // The round's trace, read back from Jaeger: the canary's span is the root, its ReplicaSets
    // are its children and each Pod a child of its ReplicaSet.
    const trace = await eventually(
      `trace ${traceId} in Jaeger`,
      async () => {
        const res = await fetch(`http://127.0.0.1:${queryPort}/api/traces/${traceId}`);
        if (!res.ok) return undefined;
        const body = (await res.json()) as {
          data: { spans: JaegerSpan[]; processes: Record<string, { serviceName: string; tags: { key: string; value: unknown }[] }> }[];
        };
        return body.data[0];
      },
      30_000,
    );
    const spans = trace.spans;
    const byId = new Map(spans.map((s) => [s.spanID, s]));
    const parentOf = (s: JaegerSpan): JaegerSpan | undefined => byId.get(s.references.find((r) => r.refType === 'CHILD_OF')?.spanID ?? '');
    const roots = spans.filter((s) => !parentOf(s));
    expect(roots.map((s) => s.operationName)).toEqual([`Deployment/${DEFAULT_CANARY_NAME}`]);
    const replicaSets = spans.filter((s) => s.operationName.startsWith(`ReplicaSet/${DEFAULT_CANARY_NAME}-`));
    const pods = spans.filter((s) => s.operationName.startsWith(`Pod/${DEFAULT_CANARY_NAME}-`));
    expect(replicaSets.length).toBeGreaterThanOrEqual(1);
    expect(pods.length).toBeGreaterThanOrEqual(1);
    for (const rs of replicaSets) expect(parentOf(rs)?.operationName).toBe(`Deployment/${DEFAULT_CANARY_NAME}`);
    const shape = spans.map((s) => `${s.operationName} <- ${parentOf(s)?.operationName ?? 'root'}`).join('\n');
    for (const pod of pods) {
      const parent = parentOf(pod)!;
      expect(parent.operationName, shape).toMatch(/^ReplicaSet\//);
      expect(pod.operationName.startsWith(`Pod/${parent.operationName.slice('ReplicaSet/'.length)}-`)).toBe(true);
    }
    // Hops are span events (Jaeger logs), in the trace's order of facts.
    const podEvents = pods.flatMap((s) => s.logs.map((l) => l.fields.find((f) => f.key === 'event')?.value));
    expect(podEvents).toEqual(expect.arrayContaining(['created', 'scheduled', 'ready']));
    const processTags = Object.values(trace.processes)[0]!;
    expect(processTags.serviceName).toBe('informer-trace-probe');
    expect(processTags.tags).toEqual(
      expect.arrayContaining([
        { key: 'k8s.cluster.name', type: 'string', value: 'e2e-local' },
        { key: 'k8s.namespace.name', type: 'string', value: namespace },
      ]),
    );

    // The service list has ours, so `/api/traces?service=` finds the rounds.
    const listed = (await (await fetch(`http://127.0.0.1:${queryPort}/api/traces?service=informer-trace-probe&limit=50`)).json()) as {
      data: { traceID: string }[];
    };
    expect(listed.data.map((t) => t.traceID)).toContain(traceId);

    // SIGTERM in the middle of a round (a restart of the canary takes seconds with kwok): the round
    // gets its 1s of grace, is abandoned, and the probe exits 0.
    const next = (p.stderr().match(/round \d+: wrote:/g) ?? []).length + 1;
    await line(p, new RegExp(`round ${next}: wrote: restarted`));
    const stoppedAt = Date.now();
    expect(await stopProbe(p)).toBe(0);
    expect(Date.now() - stoppedAt).toBeLessThan(10_000);
    expect(p.stderr()).toMatch(/stopping: the round in progress has 1(\.0+)?s to finish/);
    expect(p.stderr()).toMatch(new RegExp(`round ${next}: abandoned`));
    expect(p.stderr()).toMatch(new RegExp(`stopped after ${next - 1} rounds`));
    expect(p.stderr()).not.toMatch(/Error:|at .*\.js:\d+/);
  });

  it("names a namespace that does not exist once, fails /readyz with it, says when it appears, and then carries client-go's informer metrics", async () => {
    const missing = `probe-e2e-missing-${Date.now().toString(36)}`;
    const p = await startProbe(saDir, ['-n', missing, '--interval', '1s', '--sync-timeout', '30s'], cluster().kubeconfigPath);
    probes.push(p);
    try {
      await line(p, new RegExp(`namespace "${missing}" does not exist; the rounds go on`));
      const ready = await fetch(`${p.metricsUrl}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.text()).toBe(`namespace "${missing}" does not exist\n`);
      // Later rounds fail quietly: the problem is said once, and no round prints the 404.
      const failed = await eventually('three failed rounds counted', async () => {
        const n = sample(await scrape(p.metricsUrl), 'informer_trace_probe_rounds_total', { outcome: 'failed' });
        return n !== undefined && n >= 3 ? n : undefined;
      });
      expect(failed).toBeGreaterThanOrEqual(3);
      const said = p.stderr().split('\n');
      expect(
        said.filter((l) => l.includes(`namespace "${missing}" does not exist`)),
        p.stderr(),
      ).toHaveLength(1);
      expect(
        said.filter((l) => / round \d+: failed/.test(l)),
        p.stderr(),
      ).toEqual([]);

      await createWorkloadNamespace(kube, missing);
      await line(p, new RegExp(`resolved: namespace "${missing}" does not exist`));
      await line(p, new RegExp(`created the canary Deployment/${DEFAULT_CANARY_NAME} in ${missing}`));
      await eventually('/readyz ok once the namespace exists', async () => (await fetch(`${p.metricsUrl}/readyz`)).status === 200);

      // client-go's informer metrics, with what the informers synced from the real API server.
      await line(p, /round \d+: converged/);
      const families = await scrape(p.metricsUrl);
      expect(families.get('informer_queued_items')?.type).toBe('gauge');
      expect(families.get('informer_processing_latency_seconds')?.type).toBe('histogram');
      const leases = { group: 'coordination.k8s.io', version: 'v1', resource: 'leases' };
      const deployments = { group: 'apps', version: 'v1', resource: 'deployments' };
      const liveRv = await kube.client.json<{ metadata: { resourceVersion: string } }>('/apis/apps/v1/deployments?limit=1');
      for (const labels of [leases, deployments]) {
        const rv = sample(families, 'informer_store_resource_version', labels);
        expect(rv, JSON.stringify(labels)).toBeGreaterThan(0);
        expect(rv!).toBeLessThanOrEqual(Number(liveRv.metadata.resourceVersion));
        expect(sample(families, 'informer_processing_latency_seconds', labels, '_count')).toBeGreaterThan(0);
        expect(sample(families, 'informer_processing_latency_seconds', { ...labels, le: '+Inf' }, '_bucket')).toBe(
          sample(families, 'informer_processing_latency_seconds', labels, '_count'),
        );
        expect(sample(families, 'informer_queued_items', labels)).toBeGreaterThanOrEqual(0);
      }
      expect(await stopProbe(p)).toBe(0);
    } finally {
      await stopProbe(p);
      await deleteNamespace(kube, missing);
    }
  });

  it('names the request RBAC refuses once, with verb, resource and namespace, and fails /readyz with it', async () => {
    // The service account may write only in its own namespace; "default" refuses it.
    const p = await startProbe(saDir, ['-n', 'default', '--interval', '1s']);
    probes.push(p);
    try {
      const refused = /forbidden: system:serviceaccount:\S+ may not (get|create) deployments\.apps in namespace default; the rounds go on/;
      await line(p, refused);
      const ready = await fetch(`${p.metricsUrl}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.text()).toMatch(/^forbidden: .* deployments\.apps in namespace default\n$/);
      await eventually('three failed rounds counted', async () => {
        const n = sample(await scrape(p.metricsUrl), 'informer_trace_probe_rounds_total', { outcome: 'failed' });
        return n !== undefined && n >= 3;
      });
      const said = p.stderr().split('\n');
      expect(
        said.filter((l) => refused.test(l)),
        p.stderr(),
      ).toHaveLength(1);
      expect(
        said.filter((l) => / round \d+: failed/.test(l)),
        p.stderr(),
      ).toEqual([]);
      expect(await stopProbe(p)).toBe(0);
    } finally {
      await stopProbe(p);
    }
  });

  it('survives a restart of kube-apiserver: it stays live, counts the rounds it cost, and converges again after', async () => {
    const p = await startProbe(saDir, ['--interval', '1s', '--timeout', '60s', '--shutdown-grace', '1s']);
    probes.push(p);
    await line(p, /round 1: converged/);
    const converged = async (): Promise<number> => sample(await scrape(p.metricsUrl), 'informer_trace_probe_rounds_total', { outcome: 'converged' }) ?? 0;

    const seenAtStop = p.stderr().length;
    const roundsAfterStop = (): string[] =>
      p
        .stderr()
        .slice(seenAtStop)
        .match(/round \d+: (converged|timeout|failed)\b/g) ?? [];
    await cluster().stopApiServer();
    let convergedAtRestart: number;
    try {
      // With nothing to talk to, rounds fail at once; the loop goes on and the probe stays live.
      await eventually('a failed round while kube-apiserver is down', async () => roundsAfterStop().some((l) => l.endsWith('failed')), 120_000, 50).catch(
        (err: Error) => {
          throw new Error(`${err.message}\nprobe stderr:\n${p.stderr()}`);
        },
      );
      expect((await fetch(`${p.metricsUrl}/healthz`)).status).toBe(200);
      convergedAtRestart = await converged();
    } finally {
      await cluster().startApiServer();
    }
    await eventually('a converged round after the restart', async () => (await converged()) > convergedAtRestart, 120_000, 200).catch((err: Error) => {
      throw new Error(`${err.message}\nprobe stderr:\n${p.stderr()}`);
    });
    expect((await fetch(`${p.metricsUrl}/healthz`)).status).toBe(200);

    // Every round that ended is counted under its outcome, the failed ones included.
    const stderr = p.stderr();
    const ended = stderr.match(/round \d+: (converged|timeout|failed)\b/g) ?? [];
    const families = await scrape(p.metricsUrl);
    const byOutcome = (outcome: string): number => sample(families, 'informer_trace_probe_rounds_total', { outcome }) ?? 0;
    expect(byOutcome('failed')).toBeGreaterThanOrEqual(1);
    expect(byOutcome('converged') + byOutcome('timeout') + byOutcome('failed'), stderr).toBeGreaterThanOrEqual(ended.length);
    expect(roundsAfterStop().filter((l) => l.endsWith('failed')).length).toBeLessThanOrEqual(byOutcome('failed'));
    expect(stderr).toMatch(/round \d+: failed: .*(refused|ECONNREFUSED|connect)/i);
    expect(stderr).not.toMatch(/at .*\.js:\d+/);
    expect(await stopProbe(p)).toBe(0);
    await clusterHealthy(kube, [namespace]);
  }, 300_000);
});
