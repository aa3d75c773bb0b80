/**
 * kubectl informer-trace queues, and --metrics on the trace, against the real control plane: the
 * real kube-controller-manager's deployment and replicaset queues while a Deployment scales from 1
 * to 30 replicas; sources that answer HTML, 401, 403 or nothing next to the real one; the API
 * server's /metrics reached directly with the kubeconfig's credentials; and the controller queue's
 * adds after a --burst.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInformerTraceProgram } from '../../src/commands/informer-trace.js';
import { createSources, MetricsPoller, MultiScraper, type MetricsSnapshot, type QueueRow, type SourceStatus } from '../../src/metrics/index.js';
import {
  adminKube,
  cluster,
  createDeployment,
  createWorkloadNamespace,
  deleteNamespace,
  deploymentAvailable,
  eventually,
  runCli,
  startCli,
  stderrLine,
  uniqueName,
} from './helpers.js';

const c = cluster();
const kube = adminKube();
const ns = uniqueName('it-queues');
const kubeconfig = c.kubeconfigPath;

/** The controller managers that run: the second one only after a leader-election test started it. */
function kcmUrls(): string[] {
  return (['kube-controller-manager', 'kube-controller-manager-2'] as const).filter((n) => c.pid(n) !== undefined).map((n) => c.metricsUrl(n));
}

/** The controller manager holding the lease: the one whose controllers (and queues) run. */
async function leaderUrl(): Promise<string> {
  const poller = new MetricsPoller(new MultiScraper(createSources(kcmUrls(), { direct: { insecureSkipTlsVerify: true } })));
  const leader = await eventually('a leading kube-controller-manager', async () => leaderOf(await poller.pollOnce()), 30_000, 500);
  return leader.source;
}

async function createReadyDeployment(name: string, replicas: number): Promise<void> {
  await createDeployment(kube, ns, name, replicas);
  await available(name, replicas);
}

const available = (name: string, replicas: number): Promise<void> => deploymentAvailable(kube, ns, name, replicas);

async function scale(name: string, replicas: number): Promise<void> {
  await kube.client.json(`/apis/apps/v1/namespaces/${ns}/deployments/${name}`, {
    method: 'PATCH',
    body: { spec: { replicas } },
    contentType: 'application/merge-patch+json',
  });
}

function leaderOf(snap: MetricsSnapshot): SourceStatus | undefined {
  return snap.sources.find((s) => s.ok && s.stats?.leaderElection.some((r) => r.name === 'kube-controller-manager' && r.isLeader === true));
}

function queue(s: SourceStatus | { queues: QueueRow[] } | undefined, name: string): QueueRow | undefined {
  const rows = s && 'stats' in s ? s.stats?.queues : s?.queues;
  return rows?.find((q) => q.name === name && q.controller === null);
}

interface QueuesJson {
  at: string;
  intervalMs: number;
  sources: {
    source: string;
    ok: boolean;
    state: string;
    error: string | null;
    kind: string | null;
    hint: string | null;
    windowSeconds: number | null;
    leader: string | null;
    queues: QueueRow[];
  }[];
}

/** A local endpoint that misbehaves the ways real ones do. */
let bad: Server;
let badBase: string;
const hanging = new Set<import('node:http').ServerResponse>();

beforeAll(async () => {
  await createWorkloadNamespace(kube, ns);
  bad = createServer((req, res) => {
    switch (req.url) {
      case '/html':
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end('<!doctype html><html><head><title>Sign in</title></head><body><form>…</form></body></html>\n');
        return;
      case '/401':
        res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' });
        res.end('Unauthorized\n');
        return;
      case '/403':
        res.writeHead(403, { 'content-type': 'text/plain' });
        res.end('forbidden: User "system:anonymous" cannot get path "/metrics"\n');
        return;
      default:
        hanging.add(res); // never answers
    }
  });
  await new Promise<void>((resolve) => bad.listen(0, '127.0.0.1', resolve));
  badBase = `http://127.0.0.1:${(bad.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of hanging) res.destroy();
  bad.closeAllConnections();
  await new Promise<void>((resolve) => bad.close(() => resolve()));
  await deleteNamespace(kube, ns);
});

describe("the real kube-controller-manager's queues", () => {
  it('while a Deployment scales from 1 to 30: the deployment and replicaset queues take adds and drain to 0', async () => {
    await createReadyDeployment('scale', 1);
    const sources = createSources(kcmUrls(), { direct: { insecureSkipTlsVerify: true } });
    const poller = new MetricsPoller(new MultiScraper(sources), { intervalMs: 500 });
    const seen: MetricsSnapshot[] = [];
    poller.subscribe((s) => seen.push(s));
    const stop = new AbortController();
    const running = poller.run(stop.signal);
    try {
      const base = await eventually('a scrape of the leading controller manager', async () => leaderOf(poller.latest()), 30_000, 100);
      const before = { deployment: queue(base, 'deployment')!.addsTotal!, replicaset: queue(base, 'replicaset')!.addsTotal! };
      expect(before.deployment).not.toBeNull();

      await scale('scale', 30);
      await available('scale', 30);
      // Wait for a scrape after the controllers are done: both queues empty, adds counted.
      const after = await eventually(
        'the queues to drain after the scale-up',
        async () => {
          const l = leaderOf(poller.latest());
          const d = queue(l, 'deployment');
          const r = queue(l, 'replicaset');
          return d && r && d.depth === 0 && r.depth === 0 && d.addsTotal! > before.deployment && r.addsTotal! > before.replicaset ? l : undefined;
        },
        30_000,
        100,
      );
      const d = queue(after, 'deployment')!;
      const r = queue(after, 'replicaset')!;
      // 29 new Pods each wake the ReplicaSet controller; the Deployment follows its ReplicaSet's status.
      expect(r.addsTotal! - before.replicaset).toBeGreaterThanOrEqual(2);
      expect(d.addsTotal! - before.deployment).toBeGreaterThanOrEqual(1);
      // Adds were seen as a rate while it happened, and the work was timed.
      const during = seen.map((s) => leaderOf(s)).filter((s): s is SourceStatus => s !== undefined);
      expect(Math.max(...during.map((s) => queue(s, 'replicaset')?.addsPerSecond ?? 0))).toBeGreaterThan(0);
      expect(Math.max(...during.map((s) => queue(s, 'deployment')?.addsPerSecond ?? 0))).toBeGreaterThan(0);
      expect(during.some((s) => (queue(s, 'replicaset')?.workTime.observations ?? 0) > 0 && queue(s, 'replicaset')!.workTime.p99 !== null)).toBe(true);
      // Nothing failed, nothing stuck.
      expect(r.retriesTotal).not.toBeNull();
      // A worker may be mid-item at the scrape (milliseconds); stuck work would be seconds.
      expect(r.unfinishedWorkSeconds).toBeLessThan(1);
    } finally {
      stop.abort();
      await running;
    }
  });

  it('`queues -o json --for` measures the adds over the whole time, while the Deployment scales back down', async () => {
    const url = await leaderUrl();
    const run = startCli(createInformerTraceProgram, [
      'queues',
      '--metrics',
      url,
      '--metrics-insecure-skip-tls-verify',
      '-o',
      'json',
      '--for',
      '10s',
      '--queue',
      'deployment,replicaset',
      '--kubeconfig',
      kubeconfig,
    ]);
    // The first scrape is the baseline: scale only once it is taken, so the adds fall in the window.
    await stderrLine(run, /^measuring for /);
    await scale('scale', 3);
    const res = await run.done;
    expect(res.stderr).not.toMatch(/^error/m);
    expect(res.code).toBe(0);
    const json = JSON.parse(res.stdout) as QueuesJson;
    expect(json.sources).toHaveLength(1);
    const s = json.sources[0]!;
    expect(s).toMatchObject({ source: url, ok: true, state: 'ok', error: null, leader: 'leader' });
    expect(s.windowSeconds).toBeGreaterThanOrEqual(9);
    expect(s.windowSeconds).toBeLessThan(20);
    expect(s.queues.map((q) => q.name).sort()).toEqual(['deployment', 'replicaset']);
    for (const q of s.queues) {
      expect(q.addsPerSecond, q.name).toBeGreaterThan(0);
      expect(q.addsTotal, q.name).toBeGreaterThan(0);
      expect(q.depth, q.name).not.toBeNull();
    }
    await available('scale', 3);
  });

  it('`queues -o table --once` while the Deployment scales: busy rows with rates, absent numbers as "-"', async () => {
    const urls = kcmUrls();
    const run = startCli(createInformerTraceProgram, [
      'queues',
      ...urls.flatMap((u) => ['--metrics', u]),
      '--metrics-insecure-skip-tls-verify',
      '-o',
      'table',
      '--once',
      '--interval',
      '5s',
      '--queue',
      'deployment,replicaset,cronjob',
      '--kubeconfig',
      kubeconfig,
    ]);
    await stderrLine(run, /^measuring for /);
    await scale('scale', 8);
    const res = await run.done;
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^SOURCE\s+STATE$/m);
    expect(res.stdout).toMatch(new RegExp(`^${urls[0]!.replace(/[.]/g, '\\.')}\\s+ok · (leader|standby) · rates over [45]\\.\\d+s · \\d+ queues$`, 'm'));
    expect(res.stdout).toMatch(/^(SOURCE\s+)?QUEUE\s+DEPTH\s+ADDS\/S\s+RETRIES\/S\s+QUEUE P50\s+QUEUE P99\s+WORK P50\s+WORK P99\s+UNFINISHED\s+LONGEST$/m);
    // Both queues took items in the window: a rate above 0 and timed work.
    expect(res.stdout).toMatch(/^(\S+\s+)?deployment\s+\d+\s+(0\.[1-9]\d*|0\.0[1-9]|[1-9][\d.]*)\s+\S+\s+\S+\s+\S+\s+\d\S*\s+\d\S*\s/m);
    expect(res.stdout).toMatch(/^(\S+\s+)?replicaset\s+\d+\s+(0\.[1-9]\d*|0\.0[1-9]|[1-9][\d.]*)\s+\S+\s+\S+\s+\S+\s+\d\S*\s+\d\S*\s/m);
    // No CronJob exists: its queue is exported, so 0 adds, but no observations, so no quantiles: "-", never 0.
    expect(res.stdout).toMatch(/^(\S+\s+)?cronjob\s+0\s+0\s+0\s+-\s+-\s+-\s+-\s+0\s+0$/m);
    process.stderr.write(`\n--- queues -o table --once (real kube-controller-manager) ---\n${res.stdout}\n`);
    await available('scale', 8);
  });
});

describe('sources that fail, next to the real one', () => {
  it('HTML, 401, 403 and a hang each get a one-line error; the real source keeps its rows; exit 0', async () => {
    const url = await leaderUrl();
    const badUrls = ['html', '401', '403', 'hang'].map((p) => `${badBase}/${p}`);
    const res = await runCli(createInformerTraceProgram, [
      'queues',
      '--metrics',
      url,
      ...badUrls.flatMap((u) => ['--metrics', u]),
      '--metrics-insecure-skip-tls-verify',
      '--metrics-timeout',
      '3s',
      '--interval',
      '3s',
      '-o',
      'json',
      '--kubeconfig',
      kubeconfig,
    ]);
    expect(res.code).toBe(0);
    const json = JSON.parse(res.stdout) as QueuesJson;
    const by = new Map(json.sources.map((s) => [s.source, s]));
    expect(by.get(url)).toMatchObject({ ok: true, error: null });
    expect(queue(by.get(url), 'deployment')).toBeDefined();
    expect(by.get(url)!.queues.length).toBeGreaterThan(10);
    expect(by.get(`${badBase}/html`)).toMatchObject({ ok: false, state: 'failed', kind: 'not-metrics', queues: [] });
    expect(by.get(`${badBase}/html`)!.error).toMatch(/^answered text\/html, not Prometheus metrics \(starts "<!doctype html><html><head><title>Sign in/);
    expect(by.get(`${badBase}/401`)).toMatchObject({ ok: false, kind: 'unauthorized' });
    expect(by.get(`${badBase}/401`)!.error).toMatch(/^401 Unauthorized/);
    expect(by.get(`${badBase}/403`)).toMatchObject({ ok: false, kind: 'forbidden' });
    expect(by.get(`${badBase}/403`)!.hint).toMatch(/pass a bearer token/);
    expect(by.get(`${badBase}/hang`)).toMatchObject({ ok: false, kind: 'timeout', error: 'no answer within 3s' });

    // stderr: one line per failing source (said once, both scrapes failed the same way), no stack.
    const lines = res.stderr.split('\n').filter((l) => l.startsWith('error: '));
    expect(lines).toHaveLength(4);
    for (const u of badUrls) expect(lines.filter((l) => l.startsWith(`error: metrics ${u}: `))).toHaveLength(1);
    expect(lines.find((l) => l.includes('/html'))).toMatch(
      /: answered text\/html, not Prometheus metrics \(starts "<!doctype.*\(hint: is http:\/\/127\.0\.0\.1:\d+\/html the metrics endpoint\?/,
    );
    expect(res.stderr).not.toMatch(/^\s+at /m);
  });

  it('every source failing: exit 3, and the table says which failed', async () => {
    const res = await runCli(createInformerTraceProgram, [
      'queues',
      '--metrics',
      `${badBase}/html`,
      '--metrics',
      `${badBase}/403`,
      '-o',
      'table',
      '--once',
      '--interval',
      '500ms',
      '--kubeconfig',
      kubeconfig,
    ]);
    expect(res.code).toBe(3);
    expect(res.stdout).toMatch(new RegExp(`^${badBase.replace(/[.]/g, '\\.')}/html\\s+failed \\(see stderr\\)$`, 'm'));
    expect(res.stdout).not.toMatch(/QUEUE\s+DEPTH/);
    expect(res.stderr).toContain('error: none of the 2 metrics sources answered its last scrape');
    expect(res.stderr).not.toMatch(/^\s+at /m);
  });

  it("the API server's /metrics reached directly: refused without credentials, read with the kubeconfig's", async () => {
    const direct = `${c.server}/metrics`;
    const without = await runCli(createInformerTraceProgram, [
      'queues',
      '--metrics',
      direct,
      '--metrics-insecure-skip-tls-verify',
      '-o',
      'json',
      '--interval',
      '500ms',
      '--kubeconfig',
      kubeconfig,
    ]);
    expect(without.code).toBe(3);
    expect((JSON.parse(without.stdout) as QueuesJson).sources[0]).toMatchObject({ ok: false, kind: expect.stringMatching(/^(unauthorized|forbidden)$/) });

    // No TLS skip: the kubeconfig's CA verifies the API server; its client certificate authenticates.
    const withCreds = await runCli(createInformerTraceProgram, [
      'queues',
      '--metrics',
      direct,
      '--metrics-kubeconfig-credentials',
      '-o',
      'json',
      '--interval',
      '500ms',
      '--kubeconfig',
      kubeconfig,
    ]);
    expect(withCreds.stderr).not.toMatch(/^error/m);
    expect(withCreds.code).toBe(0);
    const s = (JSON.parse(withCreds.stdout) as QueuesJson).sources[0]!;
    expect(s.ok).toBe(true);
    // The API server's own work queues (e.g. its APIService and CRD controllers).
    expect(s.queues.length).toBeGreaterThan(3);
  });
});

describe('without --metrics', () => {
  it('scrapes the API server and says that no control-plane pods run here to discover', async () => {
    const res = await runCli(createInformerTraceProgram, ['queues', '-o', 'json', '--interval', '500ms', '--kubeconfig', kubeconfig]);
    expect(res.code).toBe(0);
    expect(res.stderr).toContain('no --metrics given and no control-plane pods found in kube-system');
    expect(res.stderr).toContain('hint: add kube-controller-manager with --metrics https://HOST:10257/metrics --metrics-insecure-skip-tls-verify');
    const json = JSON.parse(res.stdout) as QueuesJson;
    expect(json.sources.map((s) => [s.source, s.ok])).toEqual([['apiserver', true]]);
    expect(json.sources[0]!.queues.length).toBeGreaterThan(3);
  });
});

describe('--metrics on the trace', () => {
  it("--burst reports the adds the kube-controller-manager's deployment queue took", async () => {
    await createReadyDeployment('burst', 1);
    const urls = kcmUrls();
    const res = await runCli(createInformerTraceProgram, [
      'deploy/burst',
      '--burst',
      '10',
      '--settle',
      '2s',
      '-n',
      ns,
      '-o',
      'json',
      '--timeout',
      '60s',
      ...urls.flatMap((u) => ['--metrics', u]),
      '--metrics-insecure-skip-tls-verify',
      '--kubeconfig',
      kubeconfig,
    ]);
    expect(res.stderr).not.toMatch(/^(error|warning)/m);
    expect(res.code).toBe(0);
    const t = JSON.parse(res.stdout) as {
      burst: { writes: number; watchEvents: number; reconciles: number; controllerQueue?: string; controllerQueueAdds?: number };
      summary: { burst?: unknown };
    };
    expect(t.burst.writes).toBe(10);
    expect(t.burst.controllerQueue).toBe('deployment');
    expect(t.burst.controllerQueueAdds).toBeGreaterThan(0);

    const table = await runCli(createInformerTraceProgram, [
      'deploy/burst',
      '--burst',
      '5',
      '--settle',
      '2s',
      '-n',
      ns,
      '-o',
      'table',
      '--timeout',
      '60s',
      ...urls.flatMap((u) => ['--metrics', u]),
      '--metrics-insecure-skip-tls-verify',
      '--kubeconfig',
      kubeconfig,
    ]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/burst: 5 writes → \d+ watch events → \d+ reconciles of our workqueue; the controller's "deployment" queue: [1-9]\d* adds/);
  });
});
