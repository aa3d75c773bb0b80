// The soak: `informer-trace probe` and `informer-trace top` run side by side against churn, with a
// fault every few minutes, and what they hold is sampled. A benchmark, not a test: it reports.
//
//   npm run build && sh scripts/with-node.sh node bench/soak.mjs [options]
//
// Options: --minutes N (wall time, default 18), --interval DURATION (the probe's, default 2s: an
// hour of 1-minute rounds in about an hour / 30), --fault-every MINUTES (default 4),
// --burst-seconds N (the 429 burst's length, default 45), --cluster-dir DIR (a local control
// plane of the launcher's, started there when none runs; default
// $TMPDIR/informer-trace-soak-cluster), --keep-cluster, --json FILE (samples and results),
// --heap-at MINUTES (default 30: each process writes a V8 heap snapshot then, and again at the end;
// 0 for none), --heap-dir DIR (where they are kept, with each process's stderr; default a new
// folder under $TMPDIR), --heap-of NAME[,NAME…] (only these processes write the snapshot at
// --heap-at, e.g. probe-b,top-b with --env-b MALLOC_ARENA_MAX=2: a snapshot costs its process tens of
// MiB that glibc may keep, so the RSS slope is read off a twin that writes none until the end),
// --slope-last MINUTES (the window of the late slope, default 60, or the run's last third when it
// is shorter), --env-b VAR=VALUE[,VAR=VALUE…] (a second probe, in the namespace soak-probe-b, and a
// second `top` run beside the first two with these variables in their environment, e.g.
// MALLOC_ARENA_MAX=16 (glibc's own default on two cores, where the plugin's launchers set 2):
// every pair under the same churn and faults, so the one run compares them),
// --env-c VAR=VALUE[,…] (a third pair, likewise).
//
// What it does (BENCHMARKS.md, "Soak", has the figures):
// 1. The probe (its canary in the namespace soak-probe) and `top -o ndjson` (its output to a file)
//    run as processes of their own, through the fault proxy (tools/cluster/fault-proxy.ts).
// 2. Churn: one write at a time, every 250 ms, in soak-churn — create, update and delete of at most
//    20 Deployments and 40 ConfigMaps.
// 3. Faults, in turn: kube-apiserver restarted; etcd compacted at its current revision and the
//    API server restarted (its watch cache starts again, so a watch from an older resourceVersion
//    gets 410 Gone and relists); every connection through the proxy frozen half-open for 75 s;
//    every connection reset; a burst of 429s from the API server itself (API Priority and
//    Fairness, tools/cluster/apf-burst.ts): a FlowSchema that matches the plugins' user ahead of the exempt one sends
//    their every request to a priority level without seats, and their connections are reset so
//    that every watch opens again into the 429s; afterwards both objects are deleted. The soak's
//    own requests (churn, faults) go as another user, so the churn goes on through the burst.
//    After each fault, the time until the probe's next converged round.
// 4. Every 10 s: each process's RSS (/proc/PID/status); every minute the load average, the Events in the probe's
//    namespace (what its Events informer holds), each process's open fds (/proc/PID/fd) and its
//    active resources (timers, sockets) and its memory in parts (V8's heap spaces, what lies
//    outside the heap, resident memory by mapping: bench/lib/active-resources.mjs on SIGUSR2); every
//    5 minutes what glibc's malloc holds (bench/lib/malloc-totals.mjs, where gdb is installed).
//    At the end: RSS peak, final
//    and slope (least squares, MiB/hour of wall time) after 2 min and over the late window, each
//    part's slope over that window, the fds and active resources over the run, the probe's rounds from its own
//    metrics against the rounds it started, and the heap snapshots compared
//    (bench/lib/heap-diff.mjs): what grew, and how many informers, stores and traces are alive.
// Every request goes to the local API server only; every loop is bounded in count and time.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, openSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { FaultProxy } from '../build/tools/cluster/fault-proxy.js';
import { ApfBurst } from '../build/tools/cluster/apf-burst.js';
import { LocalCluster } from '../build/tools/cluster/launcher.js';
import { PLUGIN_NODE_ENV, PLUGIN_NODE_FLAGS } from '../build/tools/packaging/node-flags.js';
import { connect } from '../dist/kube/index.js';
import { parseExposition } from '../dist/metrics/parse.js';
import { parseArgs } from './clients/common.mjs';
import { diff, instances, summarize } from './lib/heap-diff.mjs';
import { mallocTotals } from './lib/malloc-totals.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const args = parseArgs(process.argv.slice(2));
const MINUTES = Number(args.minutes ?? 18);
const INTERVAL = args.interval ?? '2s';
const FAULT_EVERY_MS = Number(args['fault-every'] ?? 4) * 60_000;
const BURST_MS = Number(args['burst-seconds'] ?? 45) * 1000;
const SAMPLE_MS = 10_000;
const HEAP_AT_MS = Number(args['heap-at'] ?? 30) * 60_000;
const SLOPE_LAST_MIN = Number(args['slope-last'] ?? 60);
const SLOPE_LAST_MS = (MINUTES >= 2 * SLOPE_LAST_MIN ? SLOPE_LAST_MIN : MINUTES / 3) * 60_000;
/** The processes that write the first heap snapshot (all when not given); every one writes the last. */
const HEAP_OF = args['heap-of'] ? new Set(args['heap-of'].split(',')) : undefined;
const HEAP_DIR = HEAP_AT_MS > 0 ? (args['heap-dir'] ?? mkdtempSync(join(tmpdir(), 'informer-trace-soak-heap-'))) : undefined;
/** Constructors whose live count says whether informers, stores and traces are let go. */
const ALIVE = [
  'SharedIndexInformer',
  'Reflector',
  'DeltaFIFO',
  'ThreadSafeMap',
  'ProcessorListener',
  'EventsReader',
  'Tracer',
  'TraceSession',
  'ChainTracker',
  'LeaseObserver',
];
const PROBE_NS = 'soak-probe';
/** The other pairs of processes (--env-b, --env-c): a name, their probe's namespace, the variables they run with. */
const VARIANTS = ['b', 'c']
  .filter((v) => args[`env-${v}`])
  .map((v) => ({
    suffix: `-${v}`,
    namespace: `${PROBE_NS}-${v}`,
    env: Object.fromEntries(
      args[`env-${v}`].split(',').map((kv) => {
        const eq = kv.indexOf('=');
        if (eq <= 0) throw new Error(`--env-${v}: ${kv} is not VAR=VALUE`);
        return [kv.slice(0, eq), kv.slice(eq + 1)];
      }),
    ),
  }));
const NAMES = ['', ...VARIANTS.map((v) => v.suffix)].flatMap((s) => [`probe${s}`, `top${s}`]);
for (const name of HEAP_OF ?? []) if (!NAMES.includes(name)) throw new Error(`--heap-of: no process ${name} (${NAMES.join(', ')})`);
const MALLOC_EVERY_MS = 5 * 60_000;
const CHURN_NS = 'soak-churn';
const log = (s) => process.stderr.write(`[soak ${new Date().toISOString().slice(11, 19)}] ${s}\n`);

const dir = args['cluster-dir'] ?? join(tmpdir(), 'informer-trace-soak-cluster');
let cluster = LocalCluster.attach(dir);
if (cluster?.pid('etcd') && cluster.pid('kube-apiserver')) log(`using the control plane in ${dir}`);
else {
  log(`starting a control plane in ${dir}`);
  cluster = await LocalCluster.up({ dir });
}
const kube = await connect({ kubeconfig: cluster.kubeconfigPath });
const work = mkdtempSync(join(tmpdir(), 'informer-trace-soak-'));

// The plugins authenticate as a user of their own, bound to cluster-admin for the run, so that the
// 429 burst can single them out: the admin is in system:masters, which the FlowSchema "exempt"
// matches at matchingPrecedence 1, a precedence no other FlowSchema may have. The soak's own
// requests (churn, faults) go as the admin and are never throttled.
const PLUGINS = { file: 'soak-plugins', user: 'informer-trace-soak', groups: [] };
const PLUGINS_BINDING = `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${PLUGINS.user}`;
const pluginsKubeconfig = await cluster.userKubeconfig(PLUGINS);
await kube.client
  .json('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    method: 'POST',
    body: {
      metadata: { name: PLUGINS.user },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: PLUGINS.user }],
    },
  })
  .catch((err) => {
    if (!/already exists|409/.test(String(err?.message ?? err))) throw err;
  });
const proxy = await FaultProxy.start(cluster.server);
const kubeconfig = proxy.kubeconfig(pluginsKubeconfig);

async function ensureNamespace(name) {
  await kube.client.json('/api/v1/namespaces', { method: 'POST', body: { metadata: { name } } }).catch((err) => {
    if (!/already exists|409/.test(String(err?.message ?? err))) throw err;
  });
}
await ensureNamespace(PROBE_NS);
for (const v of VARIANTS) await ensureNamespace(v.namespace);
await ensureNamespace(CHURN_NS);

/**
 * A plugin process as bin/'s launcher runs it (the plugin's Node flags and environment), with the
 * active-resources preload and `env` over the rest; stderr kept, stdout to a file.
 */
function plugin(name, argv, env = {}) {
  const resources = join(work, `${name}.resources.json`);
  const out = join(work, `${name}.out`);
  if (HEAP_DIR) mkdirSync(join(HEAP_DIR, name), { recursive: true });
  const child = spawn(
    process.execPath,
    [
      ...PLUGIN_NODE_FLAGS,
      ...(HEAP_DIR ? ['--heapsnapshot-signal=SIGPWR', `--diagnostic-dir=${join(HEAP_DIR, name)}`] : []),
      '--import',
      join(here, 'lib', 'active-resources.mjs'),
      join(root, 'bin', 'kubectl-informer_trace'),
      ...argv,
    ],
    { env: { ...process.env, ...PLUGIN_NODE_ENV, ...env, SOAK_RESOURCES_FILE: resources }, stdio: ['ignore', openSync(out, 'w'), 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (c) => {
    stderr += c.toString();
    if (stderr.length > 4_000_000) stderr = stderr.slice(-2_000_000);
  });
  const exited = new Promise((res) => child.once('exit', (code) => res(code)));
  return { name, child, out, resources, stderr: () => stderr, exited, samples: [], handles: [], memory: [], heaps: [], malloc: [] };
}

const probeArgs = (ns) => [
  'probe',
  '-n',
  ns,
  '--kubeconfig',
  kubeconfig,
  '--listen',
  '127.0.0.1:0',
  '--interval',
  INTERVAL,
  '--timeout',
  '120s',
  '--shutdown-grace',
  '5s',
];
const topArgs = ['top', '-o', 'ndjson', '--kubeconfig', kubeconfig, '--interval', '2s'];
const probe = plugin('probe', probeArgs(PROBE_NS));
const top = plugin('top', topArgs);
const probes = [probe];
const procs = [probe, top];
for (const v of VARIANTS) {
  const p = plugin(`probe${v.suffix}`, probeArgs(v.namespace), v.env);
  probes.push(p);
  procs.push(p, plugin(`top${v.suffix}`, topArgs, v.env));
}

for (const p of probes) {
  for (let i = 0; i < 600 && !p.metricsUrl; i++) {
    p.metricsUrl = /serving \/metrics, \/healthz and \/readyz on (http:\/\/\S+)/.exec(p.stderr())?.[1];
    if (!p.metricsUrl) await sleep(100);
  }
  if (!p.metricsUrl) throw new Error(`${p.name} did not serve its metrics:\n${p.stderr()}`);
}

function rssMiB(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}
const fds = (pid) => readdirSync(`/proc/${pid}/fd`).length;

/** A process's active resources by type (the preload answers SIGUSR2); undefined if it did not. */
async function activeResources(p) {
  return (await selfReport(p))?.counts;
}

/** What the preload writes on SIGUSR2: active resources, process.memoryUsage(), V8's heap spaces. */
async function selfReport(p) {
  rmSync(p.resources, { force: true });
  p.child.kill('SIGUSR2');
  for (let i = 0; i < 50 && !existsSync(p.resources); i++) await sleep(100);
  try {
    return JSON.parse(readFileSync(p.resources, 'utf8'));
  } catch {
    return undefined; // not written yet, or half written
  }
}

/** The parts of a process's memory in MiB: V8's heap spaces, what V8 holds outside them, the rest of RSS, and RSS by mapping. */
function memoryParts(r) {
  if (!r?.memory) return undefined;
  const mib = (n) => n / 2 ** 20;
  const { rss, heapTotal, heapUsed, external, arrayBuffers } = r.memory;
  return {
    heapUsed: mib(heapUsed),
    heapTotal: mib(heapTotal),
    external: mib(external),
    arrayBuffers: mib(arrayBuffers),
    // RSS that is not V8's heap: the executable, malloc'd memory (zlib, TLS, buffers), stacks.
    outsideHeap: mib(rss - heapTotal),
    ...Object.fromEntries(
      Object.entries(r.spaces ?? {})
        .filter(([, v]) => v > 0)
        .map(([k, v]) => [`space:${k}`, mib(v)]),
    ),
    ...Object.fromEntries(Object.entries(r.resident ?? {}).map(([k, kb]) => [`resident:${k}`, kb / 1024])),
  };
}

/** A process writes a heap snapshot (SIGPWR, --heapsnapshot-signal); resolves with its path once written. */
async function heapSnapshot(p) {
  const folder = join(HEAP_DIR, p.name);
  const before = new Set(readdirSync(folder));
  p.child.kill('SIGPWR');
  for (let i = 0; i < 1200; i++) {
    await sleep(250);
    const file = readdirSync(folder).find((f) => !before.has(f) && f.endsWith('.heapsnapshot'));
    // V8 writes the snapshot in one go, on the main thread: it is whole once the process answers again.
    if (file && (await activeResources(p))) return join(folder, file);
  }
  throw new Error(`${p.name} wrote no heap snapshot in 5 min`);
}

async function probeMetrics(p = probe) {
  const text = await (await fetch(`${p.metricsUrl}/metrics`)).text();
  const families = new Map(parseExposition(text, { format: 'prometheus' }).families.map((f) => [f.name, f]));
  const sum = (name, labels = {}) =>
    (families.get(name)?.samples ?? [])
      .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
      .reduce((n, s) => n + s.value, 0);
  return {
    converged: sum('informer_trace_probe_rounds_total', { outcome: 'converged' }),
    timeout: sum('informer_trace_probe_rounds_total', { outcome: 'timeout' }),
    failed: sum('informer_trace_probe_rounds_total', { outcome: 'failed' }),
    watchStalls: sum('informer_trace_probe_watch_stalls_total'),
    lists: sum('reflector_lists_total'),
    watches: sum('reflector_watches_total'),
  };
}

// ---- churn ----------------------------------------------------------------------------------------

const stop = new AbortController();
const churnStats = { writes: 0, refused: 0 };
async function churn() {
  let n = 0;
  while (!stop.signal.aborted) {
    n++;
    const i = n % 20;
    const j = n % 40;
    const op = Math.floor(n / 40) % 3; // create, update, delete in waves
    const dep = `/apis/apps/v1/namespaces/${CHURN_NS}/deployments`;
    const cm = `/api/v1/namespaces/${CHURN_NS}/configmaps`;
    try {
      if (op === 0) {
        await kube.client.json(cm, { method: 'POST', body: { metadata: { name: `cm-${j}` }, data: { n: String(n) } } });
        if (n % 2 === 0)
          await kube.client.json(dep, {
            method: 'POST',
            body: {
              metadata: { name: `d-${i}` },
              spec: {
                replicas: 1,
                selector: { matchLabels: { app: `d-${i}` } },
                template: { metadata: { labels: { app: `d-${i}` } }, spec: { containers: [{ name: 'c', image: 'registry.invalid/soak:1' }] } },
              },
            },
          });
      } else if (op === 1) {
        await kube.client.json(`${cm}/cm-${j}`, { method: 'PATCH', contentType: 'application/merge-patch+json', body: { data: { n: String(n) } } });
        if (n % 2 === 0)
          await kube.client.json(`${dep}/d-${i}`, {
            method: 'PATCH',
            contentType: 'application/merge-patch+json',
            body: { spec: { replicas: 1 + (n % 3) } },
          });
      } else {
        await kube.client.json(`${cm}/cm-${j}`, { method: 'DELETE' });
        if (n % 2 === 0) await kube.client.json(`${dep}/d-${i}`, { method: 'DELETE' });
      }
      churnStats.writes++;
    } catch {
      churnStats.refused++; // exists already, gone already, or the API server is restarting
    }
    await sleep(250, undefined, { signal: stop.signal }).catch(() => undefined);
  }
}

// ---- faults ---------------------------------------------------------------------------------------

async function etcdCompact() {
  const etcd = `http://127.0.0.1:${cluster.ports.etcd}`;
  const range = await (await fetch(`${etcd}/v3/kv/range`, { method: 'POST', body: JSON.stringify({ key: Buffer.from('/').toString('base64') }) })).json();
  const revision = range.header.revision;
  const r = await fetch(`${etcd}/v3/kv/compaction`, { method: 'POST', body: JSON.stringify({ revision, physical: true }) });
  if (!r.ok) throw new Error(`etcd compaction: ${r.status} ${await r.text()}`);
  return revision;
}

// The 429 burst (tools/cluster/apf-burst.ts): a FlowSchema sends the plugins' user to a priority
// level without seats, whose one admitted request the burst holds; every other request of the user
// is answered 429 with a Retry-After until the objects are deleted.
const APF_NAME = 'apf-soak-429-burst';

/** Lines of a plugin's stderr that tell of a 429 (its status reason or the API server's message). */
const mentions429 = (p) =>
  p
    .stderr()
    .split('\n')
    .filter((line) => /TooManyRequests|too many requests/i.test(line)).length;

async function burst429() {
  const burst = await ApfBurst.start(cluster, { name: APF_NAME, user: PLUGINS, namespace: CHURN_NS });
  try {
    const before = procs.map(mentions429);
    proxy.reset(); // every watch opens again, into the 429s
    await sleep(BURST_MS);
    const r = await burst.end();
    return {
      server429s: r.rejected,
      stderr429Lines: Object.fromEntries(procs.map((p, i) => [p.name, mentions429(p) - before[i]])),
      retryAfterS: r.retryAfterSeconds,
      seatHolders: r.seatHolders,
    };
  } finally {
    await burst.end();
  }
}

const faults = [
  { name: `429 burst: API Priority and Fairness rejects the plugins' user for ${BURST_MS / 1000} s`, run: burst429 },
  {
    name: 'kube-apiserver restart',
    run: async () => {
      await cluster.stopApiServer();
      await cluster.startApiServer();
    },
  },
  {
    name: 'etcd compaction, then kube-apiserver restart (410 on re-watch)',
    run: async () => {
      const rev = await etcdCompact();
      await cluster.stopApiServer();
      await cluster.startApiServer();
      return `compacted at revision ${rev}`;
    },
  },
  {
    name: 'half-open: every connection frozen for 75 s',
    run: async () => {
      proxy.freeze();
      await sleep(75_000);
      proxy.thaw();
    },
  },
  { name: 'every connection reset', run: async () => proxy.reset() },
];

// ---- the run --------------------------------------------------------------------------------------

/** Events in the probe's namespace: what its Events informer holds. */
async function eventsInProbeNamespace() {
  return (await kube.client.json(`/apis/events.k8s.io/v1/namespaces/${PROBE_NS}/events`)).items.length;
}

/** Seconds from now until a probe's converged count passes `after`; undefined if not within `ms`. */
async function untilConverged(p, after, ms) {
  const t0 = Date.now();
  while (Date.now() - t0 < ms) {
    if ((await probeMetrics(p).catch(() => ({ converged: -1 }))).converged > after) return Math.round((Date.now() - t0) / 100) / 10;
    await sleep(500);
  }
  return undefined;
}

const startedAt = Date.now();
const endAt = startedAt + MINUTES * 60_000;
const faultLog = [];
const eventSamples = [];
/** The machine's 1-minute load average each minute: what ran beside the soak. */
const loadSamples = [];
let heapTaken = false;
const churning = churn();
let nextFault = startedAt + FAULT_EVERY_MS;
let k = 0;
const sampling = (async () => {
  let nextSample = startedAt;
  let nextMalloc = startedAt + 60_000;
  let n = 0;
  while (!stop.signal.aborted) {
    const at = (Date.now() - startedAt) / 1000;
    for (const p of procs) if (p.child.exitCode === null) p.samples.push([at, rssMiB(p.child.pid)]);
    if (n++ % 6 === 0) {
      loadSamples.push([at, Math.round(loadavg()[0] * 100) / 100]);
      eventSamples.push([at, await eventsInProbeNamespace().catch(() => null)]);
      for (const p of procs) {
        if (p.child.exitCode !== null) continue;
        const r = await selfReport(p);
        p.handles.push([at, fds(p.child.pid), r?.counts]);
        const parts = memoryParts(r);
        if (parts) p.memory.push([at, parts]);
      }
    }
    if (Date.now() >= nextMalloc) {
      nextMalloc += MALLOC_EVERY_MS;
      for (const p of procs) if (p.child.exitCode === null) p.malloc.push([(Date.now() - startedAt) / 1000, await mallocTotals(p.child.pid)]);
    }
    if (HEAP_DIR && !heapTaken && Date.now() - startedAt >= HEAP_AT_MS && Date.now() + 300_000 < endAt) {
      heapTaken = true;
      for (const p of procs) if (!HEAP_OF || HEAP_OF.has(p.name)) p.heaps.push(await heapSnapshot(p));
      log(`heap snapshots at ${Math.round((Date.now() - startedAt) / 60_000)} min in ${HEAP_DIR}`);
    }
    nextSample += SAMPLE_MS;
    await sleep(Math.max(0, nextSample - Date.now()), undefined, { signal: stop.signal }).catch(() => undefined);
  }
})();
log(`running ${MINUTES} min: probe every ${INTERVAL}, a fault every ${FAULT_EVERY_MS / 60_000} min; files in ${work}`);
while (Date.now() < endAt) {
  for (const p of procs) if (p.child.exitCode !== null) throw new Error(`${p.name} exited (${p.child.exitCode}):\n${p.stderr().slice(-3000)}`);
  if (Date.now() >= nextFault && Date.now() + 120_000 < endAt) {
    const f = faults[k++ % faults.length];
    const t0 = Date.now();
    log(`fault: ${f.name}`);
    const note = await f.run().catch((err) => `failed: ${err.message}`);
    const tookS = Math.round((Date.now() - t0) / 100) / 10;
    const recovered = await Promise.all(probes.map(async (p) => (await untilConverged(p, (await probeMetrics(p)).converged, 180_000)) ?? 'not within 180 s'));
    const entry = {
      at: Math.round((t0 - startedAt) / 1000),
      name: f.name,
      tookS,
      note: note ?? '',
      probeConvergedAgainAfterS: recovered[0],
      ...(VARIANTS.length ? { othersConvergedAgainAfterS: Object.fromEntries(probes.slice(1).map((p, i) => [p.name, recovered[i + 1]])) } : {}),
    };
    faultLog.push(entry);
    log(`fault done: ${JSON.stringify(entry)}`);
    nextFault = Date.now() + FAULT_EVERY_MS;
  }
  await sleep(1000);
}

// ---- results --------------------------------------------------------------------------------------

/** A probe's rounds: those it started (its log) against those its metrics count, by outcome. */
async function rounds(p) {
  const metrics = await probeMetrics(p);
  const started = Math.max(0, ...[...p.stderr().matchAll(/round (\d+):/g)].map((m) => Number(m[1])));
  const ended = metrics.converged + metrics.timeout + metrics.failed;
  const inProgress = new RegExp(`round ${started}: (converged|timeout|failed)`).test(p.stderr()) ? 0 : 1;
  return { started, endedByMetrics: ended, inProgressAtEnd: inProgress, accountedFor: ended + inProgress === started, ...metrics };
}
const roundsByProbe = {};
for (const p of probes) roundsByProbe[p.name] = await rounds(p);
const end = {};
for (const p of procs) end[p.name] = { fds: fds(p.child.pid), resources: await activeResources(p), malloc: await mallocTotals(p.child.pid) };
stop.abort();
await churning;
await sampling;
if (HEAP_DIR && heapTaken) for (const p of procs) p.heaps.push(await heapSnapshot(p));
for (const p of procs) p.child.kill('SIGTERM');
await Promise.all(procs.map((p) => p.exited));

/** Least-squares slope of [seconds, MiB] in MiB/hour. */
function slope(samples) {
  const n = samples.length;
  const mx = samples.reduce((s, [x]) => s + x, 0) / n;
  const my = samples.reduce((s, [, y]) => s + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of samples) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? 0 : (num / den) * 3600;
}
/** Each memory part's slope over the late window and its last value. */
function lateParts(p) {
  const lastAt = p.memory.at(-1)?.[0];
  if (lastAt === undefined) return undefined;
  const late = p.memory.filter(([x]) => x >= lastAt - SLOPE_LAST_MS / 1000);
  const keys = [...new Set(late.flatMap(([, m]) => Object.keys(m)))];
  const round = (n) => Math.round(n * 100) / 100;
  return Object.fromEntries(keys.map((k) => [k, { MiBPerHour: round(slope(late.map(([x, m]) => [x, m[k] ?? 0]))), last: round(late.at(-1)[1][k] ?? 0) }]));
}
/** The 1-minute load average over the run and over the late window: min, median, max. */
function loadSummary() {
  const lastAt = loadSamples.at(-1)?.[0] ?? 0;
  const stats = (xs) => {
    const v = xs.map(([, y]) => y).sort((a, b) => a - b);
    return v.length ? { min: v[0], median: v[v.length >> 1], max: v.at(-1) } : undefined;
  };
  return { run: stats(loadSamples), late: stats(loadSamples.filter(([x]) => x >= lastAt - SLOPE_LAST_MS / 1000)) };
}
/** glibc malloc's books over the run: first, last, and each figure's slope over the late window (MiB/hour). */
function mallocSummary(p) {
  const known = p.malloc.filter(([, m]) => m);
  if (known.length === 0) return undefined;
  const lastAt = known.at(-1)[0];
  const late = known.filter(([x]) => x >= lastAt - SLOPE_LAST_MS / 1000);
  const slopes = Object.fromEntries(['arena', 'inUse', 'free'].map((k) => [k, Math.round(slope(late.map(([x, m]) => [x, m[k]])) * 10) / 10]));
  return { first: known[0][1], last: known.at(-1)[1], lateMiBPerHour: slopes, samples: known.length };
}
const wallMin = (Date.now() - startedAt) / 60_000;
const intervalS = Number.parseFloat(INTERVAL) * (INTERVAL.endsWith('ms') ? 0.001 : INTERVAL.endsWith('m') ? 60 : 1);
const results = {
  machine: { cpus: cpus().length, model: cpus()[0]?.model, memGiB: Math.round(totalmem() / 2 ** 30), loadavg: loadavg() },
  load: loadSummary(),
  wallMin: Math.round(wallMin * 10) / 10,
  interval: INTERVAL,
  ...(VARIANTS.length ? { variants: Object.fromEntries(VARIANTS.map((v) => [v.suffix.slice(1), v.env])) } : {}),
  churn: churnStats,
  faults: faultLog,
  faultCounts: Object.fromEntries(faults.map((f) => [f.name, faultLog.filter((e) => e.name === f.name).length])),
  rounds: { ...roundsByProbe.probe, atMostByInterval: Math.floor((wallMin * 60) / intervalS) },
  ...(VARIANTS.length ? { roundsOfOthers: Object.fromEntries(probes.slice(1).map((p) => [p.name, roundsByProbe[p.name]])) } : {}),
  topSnapshots: readFileSync(top.out, 'utf8').split('\n').filter(Boolean).length,
  eventsInProbeNamespace: { first: eventSamples[0]?.[1], peak: Math.max(...eventSamples.map(([, n]) => n ?? 0)), last: eventSamples.at(-1)?.[1] },
  stderr429Lines: Object.fromEntries(procs.map((p) => [p.name, mentions429(p)])),
  // Each round that did not converge, as each probe logged it (its cause).
  roundsNotConverged: Object.fromEntries(
    probes.map((p) => [
      p.name,
      p
        .stderr()
        .split('\n')
        .filter((l) => /round \d+: (failed|timeout|abandoned)/.test(l)),
    ]),
  ),
  processes: Object.fromEntries(
    procs.map((p) => {
      const rss = p.samples.map(([, y]) => y);
      const warm = p.samples.filter(([x]) => x >= 120);
      const late = p.samples.filter(([x]) => x >= p.samples.at(-1)[0] - SLOPE_LAST_MS / 1000);
      const handles = p.handles.filter(([x]) => x >= 120);
      const resourceKinds = [...new Set(handles.flatMap(([, , r]) => Object.keys(r ?? {})))];
      const heap =
        p.heaps.length === 2
          ? {
              files: p.heaps,
              ...(() => {
                const [a, b] = p.heaps.map(summarize);
                return { alive: [instances(a, ALIVE), instances(b, ALIVE)], ...diff(a, b, 12) };
              })(),
            }
          : p.heaps.length === 1
            ? { files: p.heaps, alive: [instances(summarize(p.heaps[0]), ALIVE)] }
            : undefined;
      return [
        p.name,
        {
          rssPeakMiB: Math.round(Math.max(...rss) * 10) / 10,
          rssFinalMiB: Math.round(rss.at(-1) * 10) / 10,
          slopeMiBPerHour: Math.round(slope(warm.length >= 3 ? warm : p.samples) * 10) / 10,
          lateSlope: { minutes: Math.round(SLOPE_LAST_MS / 6_000) / 10, MiBPerHour: Math.round(slope(late) * 10) / 10 },
          samples: p.samples.length,
          fdsAfterWarmUp: { min: Math.min(...handles.map(([, n]) => n)), max: Math.max(...handles.map(([, n]) => n)) },
          resourcesAfterWarmUp: Object.fromEntries(
            resourceKinds.map((k) => {
              const counts = handles.filter(([, , r]) => r).map(([, , r]) => r[k] ?? 0);
              return [k, { min: Math.min(...counts), max: Math.max(...counts), last: counts.at(-1) }];
            }),
          ),
          heap,
          // Each part's slope over the late window (MiB/hour), and its value at the end: which part the RSS slope is.
          lateSlopeByPart: lateParts(p),
          mallocOverRun: mallocSummary(p),
          ...end[p.name],
        },
      ];
    }),
  ),
};
await proxy.close();
await kube.client.json(PLUGINS_BINDING, { method: 'DELETE' }).catch(() => undefined);
cluster.removeUser(PLUGINS);
// On a cluster that stays up, the soak's namespaces go (the probe's canary and the churn with them).
const keptUp = args['keep-cluster'] === 'true' || Boolean(args['cluster-dir']);
if (keptUp)
  for (const ns of [PROBE_NS, ...VARIANTS.map((v) => v.namespace), CHURN_NS])
    await kube.client.json(`/api/v1/namespaces/${ns}`, { method: 'DELETE' }).catch(() => undefined);
else await cluster.down();
// The processes' own logs are kept beside their heap snapshots.
if (HEAP_DIR) for (const p of procs) writeFileSync(join(HEAP_DIR, p.name, 'stderr.log'), p.stderr());
rmSync(work, { recursive: true, force: true });
if (args.json)
  writeFileSync(
    args.json,
    JSON.stringify(
      {
        ...results,
        samples: Object.fromEntries(procs.map((p) => [p.name, { rss: p.samples, handles: p.handles, memory: p.memory, malloc: p.malloc }])),
        eventSamples,
        loadSamples,
      },
      null,
      2,
    ),
  );
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
