// Children of a custom resource found through discovery, against a kubectl-tree-style snapshot
// (BENCHMARKS.md, "Children of a custom resource through discovery"), at two scales in one run.
//
//   npm run build && node bench/discovery.mjs --kubeconfig FILE [--reps 3] [--scales 50,200] [--kubectl PATH] [--keep-objects] [--json FILE] [--verbose]
//
// Scales: 50 kinds of 100 objects (5,000) and 200 kinds of 250 (50,000), one after the other (the
// trace looks in every kind the server serves, so only one scale's CRDs may exist at a time).
// Setup of a scale (not measured): in the namespace bench-discovery, the CRDs of the group
// discovery.bench.example (Gadget00 … Gadget44, or … Gadget194; namespaced, a status subresource)
// and their objects, as many of each of the kinds: the custom ones (a spec of about 1 KiB, a Ready
// condition written through /status) and ConfigMaps, Secrets, ServiceAccounts, headless Services
// and PodTemplates. They are created through the API directly, 32 requests at a time; a fixture
// of another scale is deleted first. Gadget00/root owns ConfigMap/root-config, Secret/root-secret,
// Gadget01/root-part and Gadget02/root-part; Gadget01/root-part owns ConfigMap/root-part-config.
//
// Then --reps repetitions (order rotated each repetition), each variant in a process of its own
// under /usr/bin/time (peak RSS, %M), timed from spawn, the 1-minute load average noted at each:
//   - ours: `kubectl informer-trace gadget00/root -n bench-discovery --watch -o json` (bin/, as
//     installed), until it prints "watching Gadget00/root for a change" (its caches synced);
//   - snapshot, one Node process (bench/clients/tree-snapshot.mjs, bundled as bin/'s program is,
//     with the plugin's Node flags): discovery, then a LIST of every kind the trace looks in, all
//     at once, full objects in JSON, then the ownerReferences walked from the target; to its exit;
//   - snapshot, kubectl (at 50 kinds only: at 200 it is 225 processes at once): `kubectl
//     api-resources --namespaced --verbs=list,watch -o name`, then `kubectl get TYPE -n
//     bench-discovery -o json` for each type (Events apart), all at once, their output walked the
//     same way (bench/lib/owner-walk.mjs) here; from the first spawn to the walk's end. kubectl
//     keeps its discovery on disk (a --cache-dir of this run's, warm after the warm-up). Peak RSS:
//     the largest process's, and the sum over the parallel `get`s.
// One warm-up run each, checked to have found the five descendants (the trace's from a run to
// --timeout 1s, its JSON read), and a 3 s pause before every run. Then ours again, --reps times,
// with bench/lib/request-timeline.mjs loaded: its requests timed from inside, cut into its steps
// (start, discovery, the informers' LISTs and WATCHes).
// Unless --keep-objects, the CRDs (with their objects), the built-in objects and the namespace
// are deleted at the end of each scale. run.mjs runs this as its `discovery` phase.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { connect } from '../dist/kube/index.js';
import { bundleEntry } from '../build/tools/packaging/bundle.js';
import { PLUGIN_NODE_FLAGS } from '../build/tools/packaging/node-flags.js';
import { parseArgs } from './clients/common.mjs';
import { interleaved } from './lib/interleaved.mjs';
import { descendantsOf } from './lib/owner-walk.mjs';
import { fmtNum, fmtRatio, markdownTable, median } from './lib/stats.mjs';
import { findKubectl, once } from './startup.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
export const DISCOVERY_NS = 'bench-discovery';
const GROUP = 'discovery.bench.example';
/** The scales: kinds (the five built-in ones, the rest CRDs) and objects of each kind. */
export const SCALES = [
  { kinds: 50, perKind: 100 },
  { kinds: 200, perKind: 250 },
];
const BUILT_IN_KINDS = 5;
/** kubectl's variant runs one process per type at once: 75 at 50 kinds, 225 at 200 (about 9 GiB). */
const KUBECTL_MAX_KINDS = 50;
const CONCURRENCY = 32;
const SETUP_TIMEOUT_MS = 15 * 60_000;
/** Before each measured run: the kubectl variant's 76 processes leave the machine busy for a moment. */
const PAUSE_MS = 3_000;
const TARGET = { resource: 'gadget00s', kind: 'Gadget00', name: 'root' };
const EXPECTED = ['ConfigMap/root-config', 'ConfigMap/root-part-config', 'Gadget01/root-part', 'Gadget02/root-part', 'Secret/root-secret'];

const pad2 = (i) => String(i).padStart(2, '0');
const nsPath = (prefix, resource) => `${prefix}/namespaces/${DISCOVERY_NS}/${resource}`;
const labelsOf = (j) => ({ app: `app-${j % 10}`, tier: ['web', 'api', 'db'][j % 3], 'bench/index': String(j) });
const filler = (j, k, n) => `${j}-${k}-${'abcdefghijklmnopqrstuvwxyz0123456789'.repeat(Math.ceil(n / 36)).slice(0, n)}`;

function crd(i) {
  const plural = `gadget${pad2(i)}s`;
  const open = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { plural, singular: `gadget${pad2(i)}`, kind: `Gadget${pad2(i)}`, listKind: `Gadget${pad2(i)}List` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: open, status: open } } },
        },
      ],
    },
  };
}

/** The kinds that hold the objects: where to POST them, and each one's body (and status). */
function kinds(crds) {
  const custom = Array.from({ length: crds }, (_, i) => ({
    resource: `gadget${pad2(i)}s`,
    kind: `Gadget${pad2(i)}`,
    path: nsPath(`/apis/${GROUP}/v1`, `gadget${pad2(i)}s`),
    body: (name, j) => ({
      apiVersion: `${GROUP}/v1`,
      kind: `Gadget${pad2(i)}`,
      metadata: { name, labels: labelsOf(j) },
      spec: {
        replicas: (j % 5) + 1,
        image: `registry.example/app-${j % 10}:1.${j}`,
        paused: j % 7 === 0,
        params: Array.from({ length: 8 }, (_, k) => ({ name: `param-${k}`, value: filler(j, k, 48) })),
      },
    }),
    status: (j) => ({
      observedGeneration: 1,
      phase: 'Ready',
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'Reconciled',
          message: `all ${(j % 5) + 1} replicas are ready`,
          lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        },
      ],
    }),
  }));
  const core = (resource, kind, body) => ({
    resource,
    kind,
    path: nsPath('/api/v1', resource),
    body: (name, j) => ({ apiVersion: 'v1', kind, metadata: { name, labels: labelsOf(j) }, ...body(j) }),
  });
  return [
    ...custom,
    core('configmaps', 'ConfigMap', (j) => ({ data: Object.fromEntries(Array.from({ length: 4 }, (_, k) => [`key-${k}`, filler(j, k, 200)])) })),
    core('secrets', 'Secret', (j) => ({
      type: 'Opaque',
      data: Object.fromEntries(Array.from({ length: 4 }, (_, k) => [`key-${k}`, Buffer.from(filler(j, k, 150)).toString('base64')])),
    })),
    core('serviceaccounts', 'ServiceAccount', () => ({})),
    core('services', 'Service', () => ({ spec: { clusterIP: 'None', ports: [{ name: 'http', port: 80, targetPort: 8080 }] } })),
    core('podtemplates', 'PodTemplate', (j) => ({
      template: {
        metadata: { labels: labelsOf(j) },
        spec: {
          containers: [
            {
              name: 'app',
              image: `registry.example/app-${j % 10}:1.${j}`,
              ports: [{ containerPort: 8080 }],
              resources: { requests: { cpu: '10m', memory: '16Mi' } },
            },
          ],
        },
      },
    })),
  ];
}

/** Object names: obj-000 … obj-099 (… obj-249) of each kind, but for the owned ones; and who owns them. */
const SPECIAL = {
  'gadget00s/0': { name: 'root' },
  'configmaps/0': { name: 'root-config', owner: 'gadget00s/root' },
  'secrets/0': { name: 'root-secret', owner: 'gadget00s/root' },
  'gadget01s/0': { name: 'root-part', owner: 'gadget00s/root' },
  'gadget02s/0': { name: 'root-part', owner: 'gadget00s/root' },
  'configmaps/1': { name: 'root-part-config', owner: 'gadget01s/root-part' },
};

/** Runs tasks, `limit` at a time. */
async function pool(tasks, limit) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, tasks.length) }, async () => {
      while (next < tasks.length) await tasks[next++]();
    }),
  );
}

/** POST, an existing object (409) taken as it is. */
async function create(client, path, body) {
  try {
    return await client.json(path, { method: 'POST', body, query: { fieldManager: 'bench' } });
  } catch (err) {
    if (err?.code !== 409) throw err;
    return client.json(`${path}/${body.metadata.name}`);
  }
}

async function until(what, cond) {
  const deadline = performance.now() + SETUP_TIMEOUT_MS;
  while (!(await cond())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

async function count(client, path) {
  const res = await client.json(path, { query: { limit: 1 } }).catch(() => undefined);
  return (res?.items?.length ?? 0) + (res?.metadata?.remainingItemCount ?? 0);
}

/** The CRDs of the group on the server. */
async function gadgetCrds(client) {
  return (await client.json('/apis/apiextensions.k8s.io/v1/customresourcedefinitions')).items.filter((c) => c.spec.group === GROUP);
}

const describeScale = (scale) => `${scale.kinds - BUILT_IN_KINDS} CRDs and ${fmtNum(scale.kinds * scale.perKind, 0)} objects of ${scale.kinds} kinds`;

/** A scale's CRDs, the namespace and its objects; skipped when exactly they are there already. */
export async function ensureFixture(kubeconfig, scale, log = () => {}) {
  const { client } = connect({ kubeconfig });
  const crds = scale.kinds - BUILT_IN_KINDS;
  const all = kinds(crds);
  const existing = await gadgetCrds(client);
  if (existing.length === crds) {
    const have = await Promise.all(all.map((k) => count(client, k.path)));
    if (have.every((n) => n === scale.perKind)) {
      log(`discovery: the ${describeScale(scale)} in ${DISCOVERY_NS} are there already`);
      return;
    }
  }
  if (existing.length > 0 || (await client.json(`/api/v1/namespaces/${DISCOVERY_NS}`).catch(() => undefined))) await deleteFixture(kubeconfig, log);
  const t0 = performance.now();
  log(`discovery: creating ${describeScale(scale)} in ${DISCOVERY_NS}`);
  const ns = await client.json(`/api/v1/namespaces/${DISCOVERY_NS}`).catch(() => undefined);
  if (ns?.metadata?.deletionTimestamp)
    await until(
      `namespace ${DISCOVERY_NS} to finish terminating`,
      async () => !(await client.json(`/api/v1/namespaces/${DISCOVERY_NS}`).catch(() => undefined)),
    );
  await create(client, '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: DISCOVERY_NS } });
  await pool(
    Array.from({ length: crds }, (_, i) => () => create(client, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd(i))),
    8,
  );
  await until('the CRDs to be established and served', async () => {
    const established = (await gadgetCrds(client)).filter((c) => c.status?.conditions?.some((x) => x.type === 'Established' && x.status === 'True'));
    if (established.length < crds) return false;
    const served = (await connect({ kubeconfig }).discovery.served()).filter((r) => r.group === GROUP);
    return (
      served.length >= crds &&
      (
        await Promise.all(
          all.slice(0, crds).map((k) =>
            client.json(k.path, { query: { limit: 1 } }).then(
              () => true,
              () => false,
            ),
          ),
        )
      ).every(Boolean)
    );
  });
  const byResource = new Map(all.map((k) => [k.resource, k]));
  const uids = new Map();
  const one = async (k, j) => {
    const special = SPECIAL[`${k.resource}/${j}`];
    const name = special?.name ?? `obj-${String(j).padStart(3, '0')}`;
    const body = k.body(name, j);
    if (special?.owner) {
      const [resource, ownerName] = special.owner.split('/');
      const owner = byResource.get(resource);
      body.metadata.ownerReferences = [{ apiVersion: `${GROUP}/v1`, kind: owner.kind, name: ownerName, uid: uids.get(special.owner), controller: true }];
    }
    const made = await create(client, k.path, body);
    uids.set(`${k.resource}/${name}`, made.metadata.uid);
    if (k.status && !made.status)
      await client.json(`${k.path}/${name}/status`, {
        method: 'PATCH',
        contentType: 'application/merge-patch+json',
        body: { status: k.status(j) },
        query: { fieldManager: 'bench' },
      });
  };
  // The owners before what they own, then everything else.
  const order = ['gadget00s/0', 'gadget01s/0', 'gadget02s/0', 'configmaps/0', 'secrets/0', 'configmaps/1'];
  for (const key of order) {
    const [resource, j] = key.split('/');
    await one(byResource.get(resource), Number(j));
  }
  const rest = all.flatMap((k) =>
    Array.from({ length: scale.perKind }, (_, j) => j)
      .filter((j) => !order.includes(`${k.resource}/${j}`))
      .map((j) => () => one(k, j)),
  );
  await pool(rest, CONCURRENCY);
  log(`discovery: created in ${fmtNum((performance.now() - t0) / 1000, 1)} s`);
}

/** The group's CRDs (and with them their objects), the built-in objects, the namespace. */
export async function deleteFixture(kubeconfig, log = () => {}) {
  const { client } = connect({ kubeconfig });
  const quiet = (p) => p.catch((err) => (err?.code === 404 ? undefined : Promise.reject(err)));
  const crdPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
  const crds = await gadgetCrds(client);
  await pool(
    crds.map((c) => () => quiet(client.json(`${crdPath}/${c.metadata.name}`, { method: 'DELETE' }))),
    8,
  );
  for (const k of kinds(0)) {
    if (k.resource === 'services') {
      // Services take no DELETE of a collection.
      const list = await client.json(k.path).catch(() => ({ items: [] }));
      await pool(
        list.items.map((s) => () => quiet(client.json(`${k.path}/${s.metadata.name}`, { method: 'DELETE' }))),
        CONCURRENCY,
      );
    } else {
      await quiet(client.json(k.path, { method: 'DELETE' }));
    }
  }
  await quiet(client.json(`/api/v1/namespaces/${DISCOVERY_NS}`, { method: 'DELETE' }));
  await until('the CRDs to be deleted', async () => (await client.json(crdPath)).items.every((c) => c.spec.group !== GROUP));
  // The namespace controller (the controller manager's) ends a namespace's deletion; a benchmark
  // cluster may run without it. Emptied of what the benchmark made, its finalizer is lifted here.
  const gone = async () => !(await quiet(client.json(`/api/v1/namespaces/${DISCOVERY_NS}`)));
  for (let i = 0; i < 40 && !(await gone()); i++) await sleep(250);
  if (!(await gone())) {
    const ns = await client.json(`/api/v1/namespaces/${DISCOVERY_NS}`);
    await quiet(client.json(`/api/v1/namespaces/${DISCOVERY_NS}/finalize`, { method: 'PUT', body: { ...ns, spec: { finalizers: [] } } }));
    await until(`namespace ${DISCOVERY_NS} to be deleted`, gone);
  }
  log(`discovery: deleted the ${crds.length} CRDs and namespace ${DISCOVERY_NS}`);
}

/** The three variants, each a function running it once and resolving with { ms, peakRssKB, … }. */
function variants({ kubeconfig, kubectl, cacheDir, snapshot, verbose }) {
  const env = { KUBECONFIG: kubeconfig };
  const plugin = join(root, 'bin', 'kubectl-informer_trace');
  const target = `${TARGET.resource}.${GROUP}/${TARGET.name}`;
  return [
    {
      client: 'ours: trace --watch, until "watching"',
      run: () => once([plugin, target, '-n', DISCOVERY_NS, '--watch', '-o', 'json'], { env, until: /^watching /m, verbose }),
    },
    {
      client: 'snapshot: one Node process, LISTs in parallel',
      run: async () => {
        const r = await once([process.execPath, ...PLUGIN_NODE_FLAGS, snapshot, '--kubeconfig', kubeconfig, '--namespace', DISCOVERY_NS, '--target', target], {
          env,
          verbose,
          stdout: true,
        });
        return { ...JSON.parse(r.stdout.trim().split('\n').pop()), ms: r.ms, peakRssKB: r.peakRssKB };
      },
    },
    {
      client: 'snapshot: kubectl get -o json per type, in parallel',
      run: async () => {
        const t0 = performance.now();
        const cache = `--cache-dir=${cacheDir}`;
        const api = await once([kubectl, 'api-resources', '--namespaced=true', '--verbs=list,watch', '-o', 'name', cache], { env, verbose, stdout: true });
        const types = api.stdout
          .split('\n')
          .map((s) => s.trim())
          .filter((t) => t && t !== 'events' && t !== 'events.events.k8s.io');
        const gets = await Promise.all(types.map((t) => once([kubectl, 'get', t, '-n', DISCOVERY_NS, '-o', 'json', cache], { env, verbose, stdout: true })));
        const lists = gets.map((g) => JSON.parse(g.stdout).items).map((items) => ({ kind: items[0]?.kind, items }));
        const { descendants, objects } = descendantsOf(lists, TARGET);
        return {
          ms: performance.now() - t0,
          peakRssKB: Math.max(api.peakRssKB, ...gets.map((g) => g.peakRssKB)),
          sumPeakRssKB: gets.reduce((a, g) => a + g.peakRssKB, 0),
          kinds: types.length,
          objects,
          mbytes: gets.reduce((a, g) => a + Buffer.byteLength(g.stdout), 0) / 2 ** 20,
          descendants,
        };
      },
    },
  ];
}

/** What the trace found: one run to its --timeout, its JSON read. */
async function checkTrace(kubeconfig, verbose) {
  const plugin = join(root, 'bin', 'kubectl-informer_trace');
  const r = await once([plugin, `${TARGET.resource}.${GROUP}/${TARGET.name}`, '-n', DISCOVERY_NS, '--watch', '--timeout', '1s', '-o', 'json'], {
    env: { KUBECONFIG: kubeconfig },
    verbose,
    stdout: true,
    okCodes: [0, 1],
  });
  const trace = JSON.parse(r.stdout);
  const names = [];
  const walk = (n) => {
    for (const c of n?.children ?? []) {
      names.push(`${c.ref.kind}/${c.ref.name}`);
      walk(c);
    }
  };
  walk(trace.tree);
  return { descendants: names.sort(), children: trace.summary?.children ?? '' };
}

/**
 * Each scale in turn (SCALES, or those given): its fixture, the variants interleaved, ours' steps.
 * Resolves with { scales: [{ scale, samples, phases, kinds, objects, mbytes, children, loadavg }], minutes }.
 */
export async function measureDiscovery({ kubeconfig, kubectl, reps = 3, scales = SCALES, log = () => {}, verbose = false, keepObjects = false, cpuProfDir }) {
  const work = mkdtempSync(join(tmpdir(), 'informer-trace-bench-discovery-'));
  const t0 = performance.now();
  try {
    // The snapshot bundled as bin/'s program is, and run with the same Node flags: the two Node
    // processes differ in what they do, not in how they are packaged.
    const snapshotScript = join(work, 'tree-snapshot.mjs');
    await bundleEntry(join(here, 'clients', 'tree-snapshot.mjs'), snapshotScript, 'bench');
    const results = [];
    for (const scale of scales) {
      await ensureFixture(kubeconfig, scale, log);
      try {
        results.push(await measureScale({ kubeconfig, kubectl, reps, scale, log, verbose, work, snapshotScript, cpuProfDir }));
      } finally {
        if (!keepObjects) await deleteFixture(kubeconfig, log);
      }
    }
    return { scales: results, minutes: (performance.now() - t0) / 60_000 };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function measureScale({ kubeconfig, kubectl, reps, scale, log, verbose, work, snapshotScript, cpuProfDir }) {
  const what = `discovery ${scale.kinds} kinds`;
  const cacheDir = join(work, `kubectl-cache-${scale.kinds}`);
  const loadBefore = loadavg();
  const all = variants({ kubeconfig, kubectl, cacheDir, snapshot: snapshotScript, verbose });
  const vs = scale.kinds <= KUBECTL_MAX_KINDS ? all : all.filter((v) => !v.client.startsWith('snapshot: kubectl'));
  const same = (a) => a.length === EXPECTED.length && a.every((x, i) => x === EXPECTED[i]);
  const traced = await checkTrace(kubeconfig, verbose);
  if (!same(traced.descendants)) throw new Error(`the trace found ${traced.descendants.join(', ') || 'nothing'}; expected ${EXPECTED.join(', ')}`);
  log(`${what}: the trace: ${traced.children.replace(/: .*/, '')}`);
  let snapshot;
  for (const v of vs) {
    await sleep(PAUSE_MS);
    const r = await v.run(); // the warm-up
    if (r.descendants && !same(r.descendants)) throw new Error(`${v.client} found ${r.descendants.join(', ') || 'nothing'}; expected ${EXPECTED.join(', ')}`);
    if (r.listMs !== undefined) snapshot = r; // the Node snapshot: the JSON as the server sent it
  }
  log(
    `${what}: each found ${EXPECTED.join(', ')}; the snapshots LIST ${snapshot.kinds} kinds, ${fmtNum(snapshot.objects, 0)} objects, ${fmtNum(snapshot.mbytes, 1)} MiB of JSON`,
  );
  const samples = await interleaved(
    vs.map((v) => ({ ...v, run: async () => ({ load1: loadavg()[0], ...(await v.run()) }) })),
    reps,
    {
      what,
      log,
      pauseMs: PAUSE_MS,
      summarise: (r) =>
        `${fmtNum(r.ms, 0)} ms, peak RSS ${fmtNum(r.peakRssKB / 1024, 0)} MiB, load ${r.load1.toFixed(1)}${r.listMs !== undefined ? ` (discovery ${fmtNum(r.discoveryMs, 0)} ms, LISTs ${fmtNum(r.listMs, 0)} ms, walk ${fmtNum(r.walkMs, 0)} ms)` : ''}`,
    },
  );
  const loadAfter = loadavg();
  // Where ours' time goes: the same run again, its requests timed from inside (not measured above),
  // and with --cpu-prof DIR a V8 CPU profile of each.
  const phases = [];
  for (let r = 0; r < reps; r++) {
    const file = join(work, `timeline-${scale.kinds}-${r}.json`);
    await sleep(PAUSE_MS);
    const prof = cpuProfDir ? ` --cpu-prof --cpu-prof-dir=${cpuProfDir} --cpu-prof-name=discovery-${scale.kinds}-${r}.cpuprofile` : '';
    await once([join(root, 'bin', 'kubectl-informer_trace'), `${TARGET.resource}.${GROUP}/${TARGET.name}`, '-n', DISCOVERY_NS, '--watch', '-o', 'json'], {
      env: {
        KUBECONFIG: kubeconfig,
        NODE_OPTIONS: `--import=${pathToFileURL(join(here, 'lib', 'request-timeline.mjs')).href}${prof}`,
        BENCH_REQUEST_TIMELINE: file,
      },
      until: /^watching /m,
      verbose,
    });
    phases.push(timelinePhases(JSON.parse(readFileSync(file, 'utf8'))));
    log(`${what}: ours' requests, run ${r + 1}/${reps}: ${phaseText(phases.at(-1))}`);
  }
  return {
    scale,
    samples,
    phases,
    kinds: snapshot.kinds,
    objects: snapshot.objects,
    mbytes: snapshot.mbytes,
    children: traced.children,
    loadavg: { before: loadBefore, after: loadAfter },
  };
}

/**
 * The trace's requests (bench/lib/request-timeline.mjs) cut into its steps, in ms since its process
 * started: discovery (/api, /apis), then each kind's informer's LIST and WATCH until "watching".
 * Requests after it are left out.
 */
export function timelinePhases({ watchingMs, requests }) {
  const first = (rs, f) => Math.min(...rs.map((r) => r[f] ?? Infinity));
  const last = (rs, f) => Math.max(...rs.map((r) => r[f] ?? -Infinity));
  const before = requests.filter((r) => r.startMs < watchingMs);
  const watch = (r) => /[?&]watch=(true|1)(&|$)/.test(r.path);
  const discovery = before.filter((r) => r.path === '/api' || r.path === '/apis');
  const lists = before.filter((r) => !watch(r) && /[?&]limit=\d+/.test(r.path));
  const watches = before.filter(watch);
  return {
    watchingMs,
    firstRequestMs: first(before, 'startMs'),
    discoveryMs: last(discovery, 'closedMs') - first(discovery, 'startMs'),
    lists: lists.length,
    watches: watches.length,
    listWatchMs: watchingMs - first(lists, 'startMs'),
    lastListMs: last(lists, 'closedMs') - first(lists, 'startMs'),
    requests: before.length,
    connections: before.filter((r) => r.newConnection).length,
  };
}

function phaseText(p) {
  return `first request at ${fmtNum(p.firstRequestMs, 0)} ms; discovery ${fmtNum(p.discoveryMs, 0)} ms; ${p.lists} LISTs and ${p.watches} WATCHes to "watching" ${fmtNum(p.listWatchMs, 0)} ms (the last LIST done after ${fmtNum(p.lastListMs, 0)} ms); "watching" at ${fmtNum(p.watchingMs, 0)} ms; ${p.requests} requests on ${p.connections} connections`;
}

/** The median of each step over the timed runs, as one line. */
export function phasesText(phases) {
  const m = (f) => median(phases.map((p) => p[f]));
  return `ours' steps, median of ${phases.length} runs: ${phaseText({ ...Object.fromEntries(Object.keys(phases[0] ?? {}).map((k) => [k, m(k)])) })}`;
}

const DISCOVERY_HEADER = ['scale', 'measurement', 'variant', 'min', 'median', 'max', '÷ Node snapshot', 'n', 'load average (1 min)'];

/**
 * Rows, scale by scale: time and peak RSS of each variant, min / median / max, the median's ratio
 * to the Node snapshot's of the same scale, and the range of the 1-minute load average at its runs.
 */
function discoveryRows({ scales }) {
  const rows = [];
  for (const { scale, samples } of scales) {
    const ref = samples.get('snapshot: one Node process, LISTs in parallel') ?? [];
    const label = `${scale.kinds} kinds / ${fmtNum(scale.kinds * scale.perKind, 0)}`;
    const row = (measurement, client, list, pick, unit, refVals) => {
      const v = list.map(pick).filter(Number.isFinite);
      if (!v.length) return;
      const load = list.map((s) => s.load1);
      rows.push([
        label,
        measurement,
        client,
        `${fmtNum(Math.min(...v), 0)} ${unit}`,
        `${fmtNum(median(v), 0)} ${unit}`,
        `${fmtNum(Math.max(...v), 0)} ${unit}`,
        refVals ? fmtRatio(median(v) / median(refVals.map(pick))) : '',
        String(v.length),
        `${Math.min(...load).toFixed(1)}–${Math.max(...load).toFixed(1)}`,
      ]);
    };
    for (const [client, list] of samples) row('time', client, list, (s) => s.ms, 'ms', ref);
    for (const [client, list] of samples) row('peak RSS', client, list, (s) => s.peakRssKB / 1024, 'MiB', ref);
    for (const [client, list] of samples)
      if (list.some((s) => s.sumPeakRssKB)) row('peak RSS, summed over the processes', client, list, (s) => s.sumPeakRssKB / 1024, 'MiB');
  }
  return rows;
}

/** The table, then per scale ours' steps, what the trace looked in, and the load average around it. */
export function discoveryReport(r) {
  const lines = r.scales.map(
    (x) =>
      `${x.scale.kinds} kinds: ${x.kinds} LISTed by the snapshots, ${fmtNum(x.objects, 0)} objects, ${fmtNum(x.mbytes, 1)} MiB of JSON; load average ${x.loadavg.before.map((l) => l.toFixed(1)).join(' ')} before, ${x.loadavg.after.map((l) => l.toFixed(1)).join(' ')} after\n${phasesText(x.phases)}\n${x.children}`,
  );
  return `${markdownTable(DISCOVERY_HEADER, discoveryRows(r))}\n\n${lines.join('\n\n')}`;
}

/** The raw results, as JSON can hold them. */
export function discoveryJson(r) {
  return { ...r, scales: r.scales.map((x) => ({ ...x, samples: Object.fromEntries(x.samples) })) };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = parseArgs(process.argv.slice(2));
  const reps = Number(args.reps ?? 3);
  const scales = args.scales ? args.scales.split(',').map((k) => SCALES.find((x) => String(x.kinds) === k.trim())) : SCALES;
  if (!args.kubeconfig || !Number.isInteger(reps) || reps < 1 || scales.some((x) => !x)) {
    process.stderr.write(
      `usage: node bench/discovery.mjs --kubeconfig FILE [--reps N] [--scales ${SCALES.map((x) => x.kinds).join(',')}] [--kubectl PATH] [--keep-objects] [--cpu-prof DIR] [--json FILE] [--verbose]\n`,
    );
    process.exit(2);
  }
  const log = (s) => process.stderr.write(`[discovery ${new Date().toISOString().slice(11, 19)}] ${s}\n`);
  measureDiscovery({
    kubeconfig: args.kubeconfig,
    kubectl: findKubectl(args.kubectl),
    reps,
    scales,
    log,
    verbose: args.verbose === 'true',
    keepObjects: args['keep-objects'] === 'true',
    cpuProfDir: args['cpu-prof'],
  }).then(
    (r) => {
      process.stdout.write(`\n${discoveryReport(r)}\n`);
      if (args.json) writeFileSync(args.json, JSON.stringify(discoveryJson(r), null, 1));
      process.exit(0);
    },
    (err) => {
      process.stderr.write(`discovery: ${err.stack ?? err.message}\n`);
      process.exit(1);
    },
  );
}
