// Benchmarks against client-go and @kubernetes/client-node, side by side, in one run (issue #9).
//
//   npm run bench                 full run (about an hour on 2 cores: 101,000 Pods, three sync sizes;
//                                 the first run also builds the Go program, a few minutes more)
//   npm run bench -- --quick      smaller N and fewer repetitions (~8 min)
//
// Options: --reps N, --sync-sizes 10000,50000,100000 (the initial-sync sizes; the quick run 10000),
// --sync-clients 'ours;client-go, protobuf' (only these rows of the sync phase, ';'-separated),
// --phases sync,events,replay,offline,workqueue,startup,discovery,tracer-scale (discovery and
// tracer-scale only in the full run by default; --tracer-replicas N, default 1000; --cpu-prof DIR: a V8
// CPU profile of the traced plugin), --cluster-dir DIR (default
// $TMPDIR/informer-trace-bench-cluster), --keep-cluster (leave it running and its Pods in place
// for the next run), --kubeconfig FILE (use a running local cluster as it is; nothing is stopped),
// --json FILE (raw results), --kubectl PATH (the startup phase's reference; default: the one built with
// the control plane), --verbose (children's stderr).
//
// What it does (BENCHMARKS.md has the method and the figures):
// 1. Starts a local control plane of its own (build/tools/cluster/launcher.js), stops the controller
//    manager, the scheduler and kwok (Pods are created bound to the kwok nodes; nothing else
//    writes while we measure) and creates the Pods once.
// 2. Runs every measured client in a process of its own (RSS is per client), repetition after
//    repetition with the order rotated, and collects one JSON line from each.
// 3. Prints one Markdown table: medians, the spread, and ratios to client-go and client-node.
// Every request goes to the local API server only; every loop is bounded in count and time.
import { spawn, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, homedir, tmpdir, totalmem, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { LocalCluster } from '../build/tools/cluster/launcher.js';
import { connect } from '../dist/kube/index.js';
import { ProtobufWatchDecoder } from '../dist/kube/protobuf/stream.js';
import { bundleEntry } from '../build/tools/packaging/bundle.js';
import { PLUGIN_NODE_FLAGS } from '../build/tools/packaging/node-flags.js';
import { fmtNum, fmtRatio, markdownTable, median, percentile } from './lib/stats.mjs';
import { interleaved as interleavedRuns } from './lib/interleaved.mjs';
import { spawnLines } from './lib/child.mjs';
import { startReplayServer } from './lib/replay-server.mjs';
import { parseArgs } from './clients/common.mjs';
import { discoveryJson, discoveryReport, measureDiscovery } from './discovery.mjs';
import { findKubectl, measureStartup, startupRows, STARTUP_HEADER } from './startup.mjs';
import { measureTracerScale, tracerScaleRows, TRACER_SCALE_HEADER } from './tracer-scale.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const args = parseArgs(process.argv.slice(2));
const QUICK = args.quick === 'true';
const REPS = Number(args.reps ?? (QUICK ? 2 : 3));
// discovery (45 CRDs and 5,000 objects, then 195 and 50,000: 15 to 30 minutes) and tracer-scale (a 1,000-replica rollout,
// several minutes) are in the full run only.
const PHASES = new Set((args.phases ?? `sync,events,replay,offline,workqueue,startup${QUICK ? '' : ',discovery,tracer-scale'}`).split(','));
const VERBOSE = args.verbose === 'true';
/** --sync-clients 'ours;client-go, protobuf': only these rows of the sync phase (names as in its table). */
const SYNC_CLIENTS = args['sync-clients'] ? new Set(args['sync-clients'].split(';')) : undefined;
const log = (s) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${s}\n`);

// ---- sizes ---------------------------------------------------------------------------------------

const SYNC_NS_A = 'bench-sync-a'; // 10,000 Pods
const SYNC_NS_B = 'bench-sync-b'; // 40,000 more; both carry bench-sync=true
const SYNC_NS_C = 'bench-sync-c'; // 50,000 more, with bench-sync=more: 100,000 with the other two
const WATCH_NS = 'bench-watch'; // 1,000 Pods the writer updates
const WATCH_PODS = 1000;
/** The initial-sync sizes, and the namespaces of Pods each needs. */
const SYNC_SIZE_DEFS = new Map([
  [10_000, { n: 10_000, namespace: SYNC_NS_A, needs: [SYNC_NS_A] }],
  [50_000, { n: 50_000, selector: 'bench-sync=true', needs: [SYNC_NS_A, SYNC_NS_B] }],
  [100_000, { n: 100_000, selector: 'bench-sync in (true,more)', needs: [SYNC_NS_A, SYNC_NS_B, SYNC_NS_C] }],
]);
const SYNC_SIZES = (args['sync-sizes'] ?? (QUICK ? '10000' : '10000,50000,100000')).split(',').map((n) => {
  const size = SYNC_SIZE_DEFS.get(Number(n));
  if (!size) {
    process.stderr.write(`bench: --sync-sizes takes ${[...SYNC_SIZE_DEFS.keys()].join(', ')}; not ${n}\n`);
    process.exit(2);
  }
  return size;
});
const EVENT_SECONDS = QUICK ? 5 : 10;
const MAX_RATE_WRITES = QUICK ? 5_000 : 10_000;
const RATES = [100, 1000, 0]; // 0 = as fast as the server allows
const REPLAY_RATES = [1000, 5000]; // events/s from the stand-in server (bench/lib/replay-server.mjs)
const OFFLINE_WRITES = QUICK ? 5_000 : 20_000;
const OFFLINE_REPS = QUICK ? 3 : 5;
const WORKQUEUE_REPS = QUICK ? 2 : 3;
const WORKQUEUE_RUNS = QUICK ? 7 : 15;
const STARTUP_RUNS = QUICK ? 5 : 10;
const CHILD_TIMEOUT_MS = 6 * 60_000;

// ---- processes -----------------------------------------------------------------------------------

const children = new Set();
/**
 * Runs one child; resolves with its last JSON line. onReady is called at a {"ready":true} line.
 * Killed (by its pid) after timeoutMs.
 */
async function runChild(cmd, argv, { env, onReady, timeoutMs = CHILD_TIMEOUT_MS, label = cmd } = {}) {
  let last;
  let child;
  const onLine = (line) => {
    let obj;
    try {
      obj = JSON.parse(line);
    } catch {
      if (VERBOSE) process.stderr.write(`  ${label}: ${line}\n`);
      return;
    }
    if (obj.ready) onReady?.();
    else last = obj;
  };
  try {
    const { code, stderr } = await spawnLines(cmd, argv, { env, onLine, timeoutMs, verbose: VERBOSE, label, onSpawn: (c) => children.add((child = c)) });
    if (code === 0 && last) return last;
    throw new Error(`${label} exited with ${code}: ${stderr.trim().split('\n').slice(-5).join(' | ')}`);
  } finally {
    children.delete(child);
  }
}

/** The Go program's `write` arguments: `count` annotation patches of the WATCH_NS Pods at `rate` a second (0: as fast as it can). */
function writeArgs(kubeconfig, { rate, count, seqStart, seconds }) {
  const flags = { kubeconfig, namespace: WATCH_NS, prefix: 'web', pods: WATCH_PODS, rate, count, 'seq-start': seqStart, workers: 64, duration: `${seconds}s` };
  return ['write', ...Object.entries(flags).flatMap(([k, v]) => [`-${k}`, String(v)])];
}

function stopChildren() {
  for (const c of children) c.kill('SIGKILL');
}
/** The cluster this run started or reused, to stop on Ctrl-C too (unless --keep-cluster). */
let ownCluster;
process.on('SIGINT', () => {
  stopChildren();
  const down = ownCluster && args['keep-cluster'] !== 'true' ? ownCluster.down().catch(() => {}) : Promise.resolve();
  down.then(() => process.exit(130));
});

// ---- the Go program ------------------------------------------------------------------------------

function clientGoBinary() {
  const src = join(here, 'clientgo');
  const hash = createHash('sha256');
  for (const f of ['go.mod', 'go.sum', 'main.go']) hash.update(readFileSync(join(src, f)));
  const dir = join(homedir(), '.cache', 'informer-trace', 'bench');
  const bin = join(dir, `clientgo-${hash.digest('hex').slice(0, 12)}`);
  if (existsSync(bin)) return bin;
  mkdirSync(dir, { recursive: true });
  log(`building the client-go program (k8s.io/client-go v0.37.2) into ${bin}; the first build takes a few minutes`);
  const tmp = `${bin}.tmp-${process.pid}`;
  execFileSync('go', ['build', '-o', tmp, '.'], { cwd: src, stdio: ['ignore', 'inherit', 'inherit'] });
  renameSync(tmp, bin);
  return bin;
}

/**
 * The Go module cache holding k8s.io/api's and k8s.io/apimachinery's .proto files, at the versions
 * the client-go program is built with (bench/lib/protobuf-list.mjs reads them from there).
 */
function protoRoot() {
  const src = join(here, 'clientgo');
  execFileSync('go', ['mod', 'download', 'k8s.io/api', 'k8s.io/apimachinery'], { cwd: src, stdio: ['ignore', 'ignore', 'inherit'] });
  return execFileSync('go', ['env', 'GOMODCACHE'], { cwd: src, encoding: 'utf8' }).trim();
}

// ---- the cluster ---------------------------------------------------------------------------------

async function setUpCluster() {
  if (args.kubeconfig) return { kubeconfig: args.kubeconfig, cluster: undefined };
  const dir = args['cluster-dir'] ?? join(tmpdir(), 'informer-trace-bench-cluster');
  // A cluster kept from an earlier run has its controller manager, scheduler and kwok stopped, so
  // LocalCluster.up() would find it unhealthy and start afresh: reuse it while its API server and
  // etcd run, and keep its Pods.
  const kept = LocalCluster.attach(dir);
  let cluster;
  if (kept?.pid('etcd') && kept.pid('kube-apiserver')) {
    log(`reusing the benchmark's control plane in ${dir}`);
    cluster = kept;
  } else {
    log(`starting the benchmark's own control plane in ${dir}`);
    cluster = await LocalCluster.up({ dir, log: (l) => VERBOSE && process.stderr.write(`  ${l}\n`) });
  }
  // Pods are created bound to the kwok nodes: nothing needs scheduling or controlling, and nothing
  // but the benchmark should write while we measure. kwok would give each Pod a status, but at
  // about 30 status patches/s it would take hours for 50,000 Pods on this machine.
  for (const c of ['kube-controller-manager', 'kube-scheduler', 'kwok']) if (cluster.pid(c)) await cluster.stopComponent(c);
  return { kubeconfig: cluster.kubeconfigPath, cluster };
}

function assertLocal(kubeconfig) {
  const { connection } = connect({ kubeconfig });
  const host = new URL(connection.server).hostname;
  if (!['127.0.0.1', 'localhost', '[::1]', '::1'].includes(host)) {
    throw new Error(`the benchmark only runs against a local API server; ${kubeconfig} points at ${connection.server}`);
  }
}

async function countPods(client, namespace, fieldSelector) {
  // One page with limit=1 gives remainingItemCount without downloading the list.
  const res = await client.json(`/api/v1/namespaces/${namespace}/pods`, { query: { limit: 1, ...(fieldSelector ? { fieldSelector } : {}) } });
  return (res.items?.length ?? 0) + (res.metadata?.remainingItemCount ?? 0);
}

async function createObjects(go, kubeconfig, cluster) {
  const { client } = connect({ kubeconfig });
  const needed = new Set(PHASES.has('sync') ? SYNC_SIZES.flatMap((s) => s.needs) : [SYNC_NS_A]);
  const wanted = [
    { namespace: WATCH_NS, count: WATCH_PODS, labels: 'bench-watch=true' },
    { namespace: SYNC_NS_A, count: 10_000, labels: 'bench-sync=true' },
    { namespace: SYNC_NS_B, count: 40_000, labels: 'bench-sync=true' },
    { namespace: SYNC_NS_C, count: 50_000, labels: 'bench-sync=more' },
  ].filter((w) => w.namespace === WATCH_NS || needed.has(w.namespace));
  const nodes = cluster?.nodes ?? ['kwok-node-0', 'kwok-node-1'];
  for (const w of wanted) {
    const have = await countPods(client, w.namespace).catch(() => 0);
    if (have >= w.count) continue;
    log(`creating ${fmtNum(w.count - have, 0)} Pods in ${w.namespace} (bound to ${nodes.join(', ')})`);
    const r = await runChild(
      go,
      [
        'create',
        '-kubeconfig',
        kubeconfig,
        '-namespace',
        w.namespace,
        '-count',
        String(w.count),
        '-prefix',
        'web',
        '-nodes',
        nodes.join(','),
        '-labels',
        w.labels,
        '-concurrency',
        '24',
      ],
      { timeoutMs: 20 * 60_000, label: 'create' },
    );
    log(`  created ${r.created}, already there ${r.existed}, in ${fmtNum(r.ms / 1000, 1)} s`);
  }
}

// ---- measurements --------------------------------------------------------------------------------

const node = process.execPath;
const ours = join(here, 'clients', 'ours.mjs');
/** ours.mjs bundled as bin/'s program is (build/tools/packaging/bundle.js): without client-node's generated API. */
const oursBundled = join(tmpdir(), `informer-trace-bench-ours-${process.pid}.mjs`);
const clientNode = join(here, 'clients', 'client-node.mjs');
// Ours runs with the Node flags the plugin itself runs with (bin/, the executables); the rows
// "Node defaults" run without them, and "client-node, plugin flags" gives client-node the same.
const oursFlags = [...PLUGIN_NODE_FLAGS];
const FLAGS_NOTE = PLUGIN_NODE_FLAGS.join(' ');
/** client-go 1.35+ streams the initial list (WatchListClient); the comparisons use list + watch like the other two. */
const listEnv = { KUBE_FEATURE_WatchListClient: 'false' };

function syncVariants(go, kubeconfig, size, protos) {
  const sel = size.namespace ? { ns: size.namespace } : { sel: size.selector };
  const nodeArgs = [`--kubeconfig=${kubeconfig}`, ...(sel.ns ? [`--namespace=${sel.ns}`] : [`--selector=${sel.sel}`])];
  const goArgs = ['-kubeconfig', kubeconfig, ...(sel.ns ? ['-namespace', sel.ns] : ['-selector', sel.sel])];
  return [
    { client: 'ours', run: () => runChild(node, [...oursFlags, ours, 'sync', ...nodeArgs], { label: 'ours' }) },
    { client: 'ours, bundled as bin/ runs it', run: () => runChild(node, [...oursFlags, oursBundled, 'sync', ...nodeArgs], { label: 'ours-bundled' }) },
    {
      client: 'ours, bundled, no gzip',
      run: () => runChild(node, [...oursFlags, oursBundled, 'sync', '--gzip=false', ...nodeArgs], { label: 'ours-bundled-nogzip' }),
    },
    {
      client: 'ours, then every spec and status read',
      run: () => runChild(node, [...oursFlags, ours, 'sync', '--read-all', ...nodeArgs], { label: 'ours-read' }),
    },
    { client: 'ours, JSON', run: () => runChild(node, [...oursFlags, ours, 'sync', '--encoding=json', ...nodeArgs], { label: 'ours-json' }) },
    { client: 'ours, no transform', run: () => runChild(node, [...oursFlags, ours, 'sync', '--transform=none', ...nodeArgs], { label: 'ours-nt' }) },
    { client: 'ours, watch-list', run: () => runChild(node, [...oursFlags, ours, 'sync', '--watch-list', ...nodeArgs], { label: 'ours-wl' }) },
    { client: 'ours, Node defaults', run: () => runChild(node, [ours, 'sync', ...nodeArgs], { label: 'ours-defaults' }) },
    { client: 'client-node', run: () => runChild(node, [clientNode, 'sync', ...nodeArgs], { label: 'client-node' }) },
    {
      client: `client-node, plugin flags (${FLAGS_NOTE})`,
      run: () => runChild(node, [...oursFlags, clientNode, 'sync', ...nodeArgs], { label: 'client-node-flags' }),
    },
    { client: 'client-go', run: () => runChild(go, ['sync', ...goArgs], { env: listEnv, label: 'client-go' }) },
    {
      client: 'client-go, strip managedFields',
      run: () => runChild(go, ['sync', '-transform', 'strip', ...goArgs], { env: listEnv, label: 'client-go-strip' }),
    },
    { client: 'client-go, watch-list (its default)', run: () => runChild(go, ['sync', ...goArgs], { label: 'client-go-wl' }) },
    { client: 'client-go, protobuf', run: () => runChild(go, ['sync', '-protobuf', ...goArgs], { env: listEnv, label: 'client-go-pb' }) },
    {
      client: 'client-go, protobuf, no gzip',
      run: () => runChild(go, ['sync', '-protobuf', '-no-gzip', ...goArgs], { env: listEnv, label: 'client-go-pb-nogzip' }),
    },
    { client: 'floor: download + JSON.parse', run: () => runChild(node, [ours, 'limit', ...nodeArgs], { label: 'limit' }) },
    {
      client: 'floor: download protobuf + protobufjs decode',
      run: () => runChild(node, [ours, 'limit', '--encoding=protobuf', `--proto-root=${protos}`, ...nodeArgs], { label: 'limit-pb' }),
    },
    { client: 'floor: download only, JSON', run: () => runChild(node, [ours, 'limit', '--decode=false', ...nodeArgs], { label: 'download-json' }) },
    {
      client: 'floor: download only, protobuf',
      run: () => runChild(node, [ours, 'limit', '--encoding=protobuf', '--decode=false', ...nodeArgs], { label: 'download-pb' }),
    },
  ];
}

/** Runs each variant `reps` times, rotating the order every repetition; returns samples per client. */
const interleaved = (variants, reps, what) => interleavedRuns(variants, reps, { what, log, summarise });

function summarise(res) {
  const parts = [];
  if (res.scenarios !== undefined) parts.push(res.scenarios.map((s) => `${s.name} ${s.keys}: ${fmtNum(s.median / 1e6, 2)} M/s`).join('; '));
  if (res.syncMs !== undefined) parts.push(`${fmtNum(res.syncMs, 0)} ms`);
  if (res.ms !== undefined) parts.push(`${fmtNum(res.ms, 0)} ms`);
  if (res.objects !== undefined) parts.push(`${res.objects} objects`);
  if (res.peakRssKB !== undefined) parts.push(`peak RSS ${fmtNum(res.peakRssKB / 1024, 0)} MiB`);
  if (res.sentPerSec !== undefined)
    parts.push(
      `sent ${fmtNum(res.sentPerSec, 0)}/s, handled ${fmtNum(res.eventsPerSec, 0)} ev/s, p50 ${fmtNum(res.p50, 1)} ms, p99 ${fmtNum(res.p99, 1)} ms, missed ${res.missed}`,
    );
  else if (res.eventsPerSec !== undefined)
    parts.push(
      `${fmtNum(res.eventsPerSec, 0)} ev/s, p50 ${fmtNum(res.p50, 1)} ms, p99 ${fmtNum(res.p99, 1)} ms, ${res.written} writes at ${fmtNum(res.writesPerSec, 0)}/s, missed ${res.missed}`,
    );
  if (res.inProcessP99 !== undefined) parts.push(`in-process p50/p99 ${res.inProcessP50}/${res.inProcessP99} ms`);
  return parts.join(', ');
}

let nextSeq = 1;

/**
 * Starts one client's `events` process on WATCH_NS: `ready` resolves once it has synced,
 * `clientDone` with its result (when each sequence number was handled).
 */
function startEventClient(go, kubeconfig, client, count, seqStart, timeoutMs = CHILD_TIMEOUT_MS) {
  let resolveReady;
  const ready = new Promise((r) => (resolveReady = r));
  const opts = { onReady: () => resolveReady(), label: client, timeoutMs };
  let clientDone;
  if (client === 'ours' || client === 'client-node') {
    const script = client === 'ours' ? ours : clientNode;
    clientDone = runChild(
      node,
      [
        ...(client === 'ours' ? oursFlags : []),
        script,
        'events',
        `--kubeconfig=${kubeconfig}`,
        `--namespace=${WATCH_NS}`,
        `--expect=${count}`,
        `--seq-start=${seqStart}`,
        '--idle-ms=5000',
      ],
      opts,
    );
  } else {
    clientDone = runChild(
      go,
      ['events', '-kubeconfig', kubeconfig, '-namespace', WATCH_NS, '-expect', String(count), '-seq-start', String(seqStart), '-idle', '5s'],
      { ...opts, env: listEnv },
    );
  }
  return { ready, clientDone };
}

async function eventRun(go, kubeconfig, client, rate) {
  // Fixed rates: rate × EVENT_SECONDS writes, but no new write after EVENT_SECONDS + 5 s (a loaded
  // server may not keep up). As fast as possible: for EVENT_SECONDS, at most MAX_RATE_WRITES.
  const count = rate > 0 ? rate * EVENT_SECONDS : MAX_RATE_WRITES;
  const duration = rate > 0 ? EVENT_SECONDS + 5 : EVENT_SECONDS;
  const seqStart = nextSeq;
  nextSeq += count;
  const { ready, clientDone } = startEventClient(go, kubeconfig, client, count, seqStart);
  await Promise.race([ready, clientDone]);
  const writer = await runChild(go, writeArgs(kubeconfig, { rate, count, seqStart, seconds: duration }), { label: 'writer' });
  const seen = await clientDone;
  const lags = [];
  const fromRequest = [];
  let first = Infinity;
  let last = -Infinity;
  let missed = 0;
  for (let i = 0; i < count; i++) {
    const w = writer.times[i];
    const h = seen.times[i];
    if (h > 0) {
      first = Math.min(first, h);
      last = Math.max(last, h);
    }
    if (!(w > 0)) continue; // the write failed
    if (!(h > 0)) {
      missed++;
      continue;
    }
    lags.push(h - w);
    fromRequest.push(h - writer.sentAt[i]);
  }
  const handled = seen.seen;
  const ok = writer.times.filter((t) => t > 0);
  return {
    eventsPerSec: handled > 1 ? ((handled - 1) / (last - first)) * 1000 : NaN,
    writesPerSec: ok.length > 0 ? (ok.length / (Math.max(...ok) - writer.startMs)) * 1000 : NaN,
    written: ok.length,
    p50: percentile(lags, 50),
    p99: percentile(lags, 99),
    p50FromRequest: percentile(fromRequest, 50),
    p99FromRequest: percentile(fromRequest, 99),
    missed,
    writeFailures: writer.failed,
    peakRssKB: seen.peakRssKB,
    inProcessP50: seen.inProcessP50,
    inProcessP99: seen.inProcessP99,
  };
}

/**
 * One client against the replay server: start it on the server's kubeconfig, wait until it has
 * synced, send rate × EVENT_SECONDS MODIFIED events at that rate, and compare its handler times
 * with the send times.
 */
async function replayRun(go, replayKubeconfig, server, client, rate) {
  const count = rate * EVENT_SECONDS;
  const seqStart = nextSeq;
  nextSeq += count;
  const { ready, clientDone } = startEventClient(go, replayKubeconfig, client, count, seqStart, 3 * 60_000);
  await Promise.race([ready, clientDone]);
  // The watch request follows the list; give it a moment to arrive.
  const deadline = performance.now() + 10_000;
  while (server.watchers() === 0 && performance.now() < deadline) await sleep(10);
  const sent = await server.replay({ rate, count, seqStart });
  const seen = await clientDone;
  const lags = [];
  let first = Infinity;
  let last = -Infinity;
  let missed = 0;
  for (let i = 0; i < count; i++) {
    const h = seen.times[i];
    if (!(h > 0)) {
      missed++;
      continue;
    }
    first = Math.min(first, h);
    last = Math.max(last, h);
    lags.push(h - sent.times[i]);
  }
  const handled = seen.seen;
  return {
    sentPerSec: ((count - 1) / (sent.times[count - 1] - sent.times[0])) * 1000,
    eventsPerSec: handled > 1 ? ((handled - 1) / (last - first)) * 1000 : NaN,
    p50: percentile(lags, 50),
    p99: percentile(lags, 99),
    max: lags.length ? Math.max(...lags) : NaN,
    missed,
    peakRssKB: seen.peakRssKB,
    inProcessP99: seen.inProcessP99,
  };
}

/**
 * Records the watch stream of the writer's namespace to files, once as JSON and once as protobuf
 * (two watches side by side): the initial ADDED events of a watch from resourceVersion 0, then
 * the MODIFIED events of OFFLINE_WRITES writes, which start once both watches have their ADDED
 * events. A loaded API server may close a watch it finds too slow; the recorder then goes on from
 * the last resourceVersion it wrote, as a reflector would, so each file is one gapless stream.
 */
async function recordWatchStream(go, kubeconfig, files) {
  const { client } = connect({ kubeconfig });
  const seqStart = nextSeq;
  nextSeq += OFFLINE_WRITES;
  const expect = WATCH_PODS + OFFLINE_WRITES;
  const deadline = performance.now() + 5 * 60_000;
  const recorders = [recordWatch(client, files.json, 'json', expect, deadline), recordWatch(client, files.protobuf, 'protobuf', expect, deadline)];
  while (recorders.some((r) => r.events() < WATCH_PODS) && performance.now() < deadline) await sleep(50);
  await runChild(go, writeArgs(kubeconfig, { rate: 0, count: OFFLINE_WRITES, seqStart, seconds: 60 }), { label: 'writer' });
  await Promise.race([Promise.all(recorders.map((r) => r.done)), sleep(15_000)]); // the events of writes that were made
  await Promise.all(recorders.map((r) => r.stop()));
  const [json, protobuf] = recorders.map((r) => r.events());
  return { events: json, protobufEvents: protobuf, mbytes: statSync(files.json).size / 2 ** 20, protobufMbytes: statSync(files.protobuf).size / 2 ** 20 };
}

/** One recording of recordWatchStream: a watch in `encoding`, each event written as received. */
function recordWatch(client, file, encoding, expect, deadline) {
  const out = createWriteStream(file);
  let events = 0;
  let rv = '0';
  let stopped = false;
  let current;
  const protobuf = encoding === 'protobuf';
  const done = (async () => {
    while (!stopped && events < expect && performance.now() < deadline) {
      const res = await client.open(`/api/v1/namespaces/${WATCH_NS}/pods`, {
        query: { watch: 'true', resourceVersion: rv },
        accept: protobuf ? 'application/vnd.kubernetes.protobuf' : 'application/json',
        timeoutMs: 0,
      });
      current = res;
      const type = res.headers['content-type'] ?? '';
      if (res.statusCode !== 200 || !type.includes(protobuf ? 'protobuf' : 'json')) {
        res.destroy();
        throw new Error(`recording the ${encoding} watch: HTTP ${res.statusCode}, ${type}`);
      }
      // Each whole event (a line, or a length-prefixed frame) is decoded to read its type and
      // resourceVersion, and its bytes are written unchanged.
      const decoder = protobuf ? new ProtobufWatchDecoder() : undefined;
      let pending = Buffer.alloc(0);
      const take = (bytes, ev) => {
        if (events >= expect) return;
        if (ev.type === 'ERROR') {
          rv = '0'; // expired: start over
          return;
        }
        out.write(bytes);
        rv = ev.object.metadata.resourceVersion;
        events++;
      };
      await new Promise((resolve) => {
        res.on('data', (chunk) => {
          pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
          let begin = 0;
          for (;;) {
            let end;
            if (protobuf) {
              if (pending.length - begin < 4) break;
              end = begin + 4 + pending.readUInt32BE(begin);
              if (end > pending.length) break;
              const frame = pending.subarray(begin, end);
              decoder.write(frame, (ev) => take(frame, ev));
            } else {
              const nl = pending.indexOf(0x0a, begin);
              if (nl === -1) break;
              end = nl + 1;
              if (nl > begin) take(pending.subarray(begin, end), JSON.parse(pending.toString('utf8', begin, nl)));
            }
            begin = end;
          }
          pending = pending.subarray(begin);
          if (events >= expect) res.destroy();
        });
        res.on('close', resolve);
        res.on('error', resolve);
      });
    }
  })();
  return {
    events: () => events,
    done,
    stop: async () => {
      stopped = true;
      current?.destroy();
      await done;
      await new Promise((r) => out.end(r));
    },
  };
}

function parseWorkqueueTable(stdout) {
  // Columns of bench/workqueue.mjs: scenario, distinct keys, calls/run, median, min, max, items/s.
  const rows = [];
  for (const line of stdout.split('\n').slice(2)) {
    const cells = line.trim().split(/\s{2,}/);
    if (cells.length < 7) continue;
    rows.push({ name: cells[0], keys: Number(cells[1].replace(/,/g, '')), median: Number(cells[3].replace(/,/g, '')) });
  }
  return rows;
}

function runWorkqueueMjs(nodeFlags) {
  return new Promise((resolve, reject) => {
    // 15 runs: V8 needs several runs of these short loops to reach its optimised code.
    const child = spawn(node, [...nodeFlags, join(here, 'workqueue.mjs'), '--runs', String(WORKQUEUE_RUNS)], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => VERBOSE && process.stderr.write(d));
    child.on('exit', (code) => {
      children.delete(child);
      code === 0 ? resolve({ scenarios: parseWorkqueueTable(out) }) : reject(new Error(`workqueue.mjs exited with ${code}`));
    });
  });
}

// ---- main ----------------------------------------------------------------------------------------

async function main() {
  const started = performance.now();
  // The startup and discovery phases measure no client-go program: they alone need no Go build.
  const go = [...PHASES].some((p) => p !== 'startup' && p !== 'discovery') ? clientGoBinary() : undefined;
  const { kubeconfig, cluster } = await setUpCluster();
  ownCluster = cluster;
  assertLocal(kubeconfig);
  const rows = [];
  const raw = { date: new Date().toISOString(), quick: QUICK, reps: REPS, machine: machine(), results: {} };
  const add = (measurement, unit, samples, pick, floorClient) => {
    const med = new Map();
    for (const [client, list] of samples) med.set(client, median(list.map(pick)));
    for (const [client, list] of samples) {
      const vals = list.map(pick).filter(Number.isFinite);
      const m = med.get(client);
      rows.push([
        measurement,
        client,
        `${fmtNum(m)} ${unit}`,
        vals.length ? `${fmtNum(Math.min(...vals))}–${fmtNum(Math.max(...vals))}` : '-',
        fmtRatio(m / med.get('client-go')),
        fmtRatio(m / med.get('client-node')),
        floorClient && med.has(floorClient) ? fmtRatio(m / med.get(floorClient)) : '',
        String(vals.length),
      ]);
    }
  };

  let startupTable;
  let discoveryTable;
  let tracerScaleTable;
  try {
    if (PHASES.has('startup')) {
      // One-shot commands against kubectl, in paired runs (bench/startup.mjs).
      const kubectl = findKubectl(args.kubectl ?? (cluster ? join(cluster.binDir, 'kubectl') : undefined));
      // With the sync phase's 10,000 Pods in place, also `cache pods` against `kubectl get pods` over them.
      const podsNamespace = (await countPods(connect({ kubeconfig }).client, SYNC_NS_A).catch(() => 0)) >= 10_000 ? SYNC_NS_A : undefined;
      const samples = await measureStartup({ kubeconfig, kubectl, runs: STARTUP_RUNS, log, podsNamespace });
      raw.results.startup = Object.fromEntries(samples);
      startupTable = markdownTable(STARTUP_HEADER, startupRows(samples));
    }

    if (PHASES.has('discovery')) {
      // The children of a custom resource found through discovery, against a snapshot (bench/discovery.mjs).
      const kubectl = findKubectl(args.kubectl ?? (cluster ? join(cluster.binDir, 'kubectl') : undefined));
      const r = await measureDiscovery({ kubeconfig, kubectl, reps: REPS, log, verbose: VERBOSE });
      raw.results.discovery = discoveryJson(r);
      discoveryTable = discoveryReport(r);
    }

    if (PHASES.has('tracer-scale')) tracerScaleTable = await tracerScale(go, kubeconfig, cluster, raw);

    if (PHASES.has('sync') || PHASES.has('events') || PHASES.has('replay') || PHASES.has('offline')) await createObjects(go, kubeconfig, cluster);

    if (PHASES.has('sync')) {
      await bundleEntry(ours, oursBundled, 'bench');
      const protos = protoRoot();
      for (const size of SYNC_SIZES) {
        const what = `initial sync of ${fmtNum(size.n, 0)} Pods`;
        const samples = await interleaved(
          syncVariants(go, kubeconfig, size, protos).filter((v) => !SYNC_CLIENTS || SYNC_CLIENTS.has(v.client)),
          REPS,
          what,
        );
        raw.results[what] = Object.fromEntries(samples);
        add(`${what}: time to synced`, 'ms', samples, (r) => r.syncMs, 'floor: download + JSON.parse');
        add(`${what}: peak RSS`, 'MiB', samples, (r) => r.peakRssKB / 1024);
      }
    }

    if (PHASES.has('events')) {
      for (const rate of RATES) {
        const what = rate > 0 ? `events at ${fmtNum(rate, 0)} writes/s` : 'events, writes as fast as the server allows';
        const variants = ['ours', 'client-node', 'client-go'].map((client) => ({ client, run: () => eventRun(go, kubeconfig, client, rate) }));
        const samples = await interleaved(variants, REPS, what);
        raw.results[what] = Object.fromEntries(samples);
        add(`${what}: writes/s achieved`, 'writes/s', samples, (r) => r.writesPerSec);
        add(`${what}: handled`, 'events/s', samples, (r) => r.eventsPerSec);
        add(`${what}: p50 lag from the response`, 'ms', samples, (r) => r.p50);
        add(`${what}: p99 lag from the response`, 'ms', samples, (r) => r.p99);
        add(`${what}: p50 lag from the request`, 'ms', samples, (r) => r.p50FromRequest);
        add(`${what}: p99 lag from the request`, 'ms', samples, (r) => r.p99FromRequest);
        add(`${what}: p99 in-process lag (event read → handler)`, 'ms', new Map([['ours', samples.get('ours')]]), (r) => r.inProcessP99);
      }
    }

    if (PHASES.has('replay')) {
      // The same clients at rates the API server here cannot take, from a stand-in server.
      const { items: pods } = await connect({ kubeconfig }).client.json(`/api/v1/namespaces/${WATCH_NS}/pods`);
      const server = await startReplayServer({ namespace: WATCH_NS, pods });
      const replayKubeconfig = server.writeKubeconfig(join(tmpdir(), `informer-trace-bench-replay-${process.pid}.kubeconfig`));
      try {
        for (const rate of REPLAY_RATES) {
          const what = `events from a stand-in server at ${fmtNum(rate, 0)} events/s`;
          const variants = ['ours', 'client-node', 'client-go'].map((client) => ({ client, run: () => replayRun(go, replayKubeconfig, server, client, rate) }));
          const samples = await interleaved(variants, REPS, what);
          raw.results[what] = Object.fromEntries(samples);
          add(`${what}: sent`, 'events/s', samples, (r) => r.sentPerSec);
          add(`${what}: handled`, 'events/s', samples, (r) => r.eventsPerSec);
          add(`${what}: p50 lag from the send`, 'ms', samples, (r) => r.p50);
          add(`${what}: p99 lag from the send`, 'ms', samples, (r) => r.p99);
          add(`${what}: missed`, 'events', samples, (r) => r.missed);
        }
      } finally {
        await server.close();
        rmSync(replayKubeconfig, { force: true });
      }
    }

    if (PHASES.has('offline')) {
      const file = args['keep-recording'] ?? join(tmpdir(), `informer-trace-bench-watch-${process.pid}.jsonl`);
      const pbFile = `${file}.protobuf`;
      try {
        const rec = await recordWatchStream(go, kubeconfig, { json: file, protobuf: pbFile });
        const what = `offline pipeline, ${fmtNum(rec.events, 0)} recorded watch events (${fmtNum(rec.mbytes, 0)} MiB; ${fmtNum(rec.protobufMbytes, 0)} MiB in protobuf)`;
        log(`${what}: recorded`);
        const e = String(rec.events);
        // The protobuf recording is replayed only when it holds the same number of events.
        const pb = rec.protobufEvents === rec.events;
        if (!pb) log(`offline: the protobuf recording has ${rec.protobufEvents} events, the JSON one ${rec.events}; its rows are left out`);
        const pbVariants = [
          {
            client: 'floor: our protobuf decoder alone, protobuf recording',
            run: () => runChild(node, [ours, 'parse', '--encoding=protobuf', `--file=${pbFile}`, `--expect=${e}`], { label: 'parse-protobuf' }),
          },
          {
            client: 'ours, protobuf recording',
            run: () => runChild(node, [...oursFlags, ours, 'offline', '--encoding=protobuf', `--file=${pbFile}`, `--expect=${e}`], { label: 'ours-protobuf' }),
          },
          {
            client: 'client-go, protobuf recording',
            run: () => runChild(go, ['offline', '-encoding', 'protobuf', '-file', pbFile, '-expect', e], { env: listEnv, label: 'client-go-protobuf' }),
          },
        ];
        const variants = [
          { client: 'floor: JSON.parse of the lines', run: () => runChild(node, [ours, 'parse', `--file=${file}`, `--expect=${e}`], { label: 'parse' }) },
          {
            client: 'floor: JSON.parse + keep newest per key',
            run: () => runChild(node, [ours, 'parse', '--keep', `--file=${file}`, `--expect=${e}`], { label: 'parse-keep' }),
          },
          { client: 'ours', run: () => runChild(node, [...oursFlags, ours, 'offline', `--file=${file}`, `--expect=${e}`], { label: 'ours' }) },
          { client: 'ours, Node defaults', run: () => runChild(node, [ours, 'offline', `--file=${file}`, `--expect=${e}`], { label: 'ours-defaults' }) },
          { client: 'client-node', run: () => runChild(node, [clientNode, 'offline', `--file=${file}`, `--expect=${e}`], { label: 'client-node' }) },
          {
            client: `client-node, plugin flags (${FLAGS_NOTE})`,
            run: () => runChild(node, [...oursFlags, clientNode, 'offline', `--file=${file}`, `--expect=${e}`], { label: 'client-node-flags' }),
          },
          { client: 'client-go', run: () => runChild(go, ['offline', '-file', file, '-expect', e], { env: listEnv, label: 'client-go' }) },
          ...(pb ? pbVariants : []),
        ];
        const samples = await interleaved(variants, OFFLINE_REPS, 'offline');
        raw.results[what] = Object.fromEntries(samples);
        add(`${what}: time`, 'ms', samples, (r) => r.ms, 'floor: JSON.parse of the lines');
      } finally {
        if (!args['keep-recording']) for (const f of [file, pbFile]) rmSync(f, { force: true });
      }
    }
  } finally {
    rmSync(oursBundled, { force: true });
    if (cluster && args['keep-cluster'] !== 'true') {
      log('stopping the benchmark cluster');
      await cluster.down();
    }
  }

  if (PHASES.has('workqueue')) {
    // Ours with the plugin's Node flags, as the queue runs inside it, and with Node's defaults.
    const variants = [
      { client: 'ours', run: () => runWorkqueueMjs(oursFlags) },
      { client: 'ours, Node defaults', run: () => runWorkqueueMjs([]) },
      { client: 'client-go', run: async () => normaliseGo(await runChild(go, ['workqueue', '-runs', String(WORKQUEUE_RUNS)], { label: 'workqueue' })) },
    ];
    const samples = await interleaved(variants, WORKQUEUE_REPS, 'workqueue');
    raw.results.workqueue = Object.fromEntries(samples);
    const first = samples.get('ours')[0]?.scenarios ?? [];
    first.forEach((s, i) => {
      const per = new Map([...samples].map(([who, list]) => [who, list.map((x) => ({ v: x.scenarios[i]?.median }))]));
      add(`workqueue ${s.name}, ${fmtNum(s.keys, 0)} keys`, 'calls/s', per, (x) => x.v);
    });
  }

  const header = ['measurement', 'client', 'median', 'range', '÷ client-go', '÷ client-node', '÷ floor', 'n'];
  if (rows.length) process.stdout.write(`\n${markdownTable(header, rows)}\n\n`);
  if (startupTable) process.stdout.write(`\n${startupTable}\n\n`);
  if (discoveryTable) process.stdout.write(`\n${discoveryTable}\n\n`);
  if (tracerScaleTable) process.stdout.write(`\n${tracerScaleTable}\n\n`);
  process.stdout.write(
    `${machine().summary}; ${QUICK ? 'quick mode, ' : ''}${REPS} repetitions, interleaved; took ${fmtNum((performance.now() - started) / 60_000, 1)} min\n`,
  );
  if (args.json) writeFileSync(args.json, JSON.stringify({ ...raw, rows }, null, 1));
}

/**
 * The tracer at scale (bench/tracer-scale.mjs), before the other phases create their Pods: a
 * rollout needs the controller manager, the scheduler and kwok, which the benchmark's cluster
 * otherwise runs without, and kwok would spend its time giving those unmanaged Pods a status.
 */
async function tracerScale(go, kubeconfig, cluster, raw) {
  const { client } = connect({ kubeconfig });
  const parked = (await Promise.all([WATCH_NS, SYNC_NS_A, SYNC_NS_B, SYNC_NS_C].map((ns) => countPods(client, ns).catch(() => 0)))).reduce((a, b) => a + b, 0);
  if (cluster && parked > 0) {
    log(
      `tracer-scale skipped: the kept cluster holds ${fmtNum(parked, 0)} of the benchmark's Pods, which kwok would be busy with; run without --keep-cluster once`,
    );
    return undefined;
  }
  const stopped = cluster ? ['kube-controller-manager', 'kube-scheduler', 'kwok'].filter((c) => !cluster.pid(c)) : [];
  for (const c of stopped) await cluster.startComponentAgain(c);
  try {
    const r = await measureTracerScale({
      kubeconfig,
      go,
      replicas: Number(args['tracer-replicas'] ?? 1000),
      log,
      verbose: VERBOSE,
      cpuProfDir: args['cpu-prof'],
    });
    raw.results['tracer-scale'] = r;
    log(
      `tracer-scale: ours ${fmtNum(r.ours.cpuS, 1)} CPU s, ${fmtNum(r.ours.peakRssKB / 1024, 0)} MiB; floor ${fmtNum(r.floor.cpuS, 1)} CPU s, ${fmtNum(r.floor.peakRssKB / 1024, 0)} MiB; hop lag p99 ${fmtNum(r.lagMs.p99, 0)} ms; TUI frame p99 ${fmtNum(r.tui.frameMs.p99, 1)} ms`,
    );
    return markdownTable(TRACER_SCALE_HEADER, tracerScaleRows(r));
  } catch (err) {
    log(`tracer-scale FAILED: ${err.message}`);
    return undefined;
  } finally {
    for (const c of stopped) await cluster.stopComponent(c);
  }
}

function normaliseGo(res) {
  return { scenarios: res.scenarios.map((s) => ({ name: s.name, keys: s.keys, median: median(s.rates) })) };
}

function machine() {
  const c = cpus();
  const go = (() => {
    try {
      return execFileSync('go', ['version'], { encoding: 'utf8' }).trim().split(' ')[2];
    } catch {
      return '?';
    }
  })();
  const summary = `${c.length} × ${c[0]?.model ?? '?'}, ${fmtNum(totalmem() / 2 ** 30, 0)} GiB, node ${process.version}, ${go}, load average at the end ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`;
  return { cpus: c.length, model: c[0]?.model, memGiB: totalmem() / 2 ** 30, node: process.version, go, summary };
}

main().then(
  () => process.exit(0),
  (err) => {
    stopChildren();
    process.stderr.write(`bench: ${err.stack ?? err.message}\n`);
    process.exit(1);
  },
);
