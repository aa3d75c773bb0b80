// A release of 400 objects applied and followed until all are ready, beside `kubectl apply` with
// `kubectl wait`, and with kstatus's watcher (BENCHMARKS.md, "A release of 400 objects").
//
//   npm run build && node bench/apply-set.mjs --kubeconfig FILE [--reps 3] [--only ours,kstatus] [--kubectl PATH] [--json FILE] [--frames 200] [--verbose]
//   node --max-semi-space-size=2 bench/apply-set.mjs --frames-of FILE [--frames 200]   (the TUI's frame time alone, over a
//     saved `-o json` report or this script's --json, which keeps ours' last report)
//
// The set: 100 Deployments (1 replica each), each with a Service and a ConfigMap, and 100 Widgets
// (fixtures.informer-trace.dev/v1), the custom resource of the widget operator
// (test/fixtures/widget-operator, controller-runtime, built from the module proxy once and cached),
// which makes a ConfigMap and a 1-replica Deployment for each and writes its Ready condition as that
// Deployment becomes available. In all, 400 objects written and 200 Deployments, 200 Pods made.
//
// Each repetition, for each variant in turn (order rotated each repetition): a fresh namespace, the
// operator started there as a process and leading (not measured), then the variant under
// /usr/bin/time (peak RSS, %M), timed from spawn to exit:
//   - ours: `kubectl informer-trace --apply -f DIR -o json` (bin/, as installed): every object
//     applied server-side in order and traced to its readiness; its own figure "all ready" (first
//     write to the last object ready) read from its JSON;
//   - kubectl: `kubectl apply --server-side -f DIR`, then `kubectl wait --for=condition=Available
//     deployment --all` and `kubectl wait --for=condition=Ready widgets --all`, one after the
//     other (what a deploy job runs); its peak RSS is the largest of the three processes';
//   - kstatus: `kubectl apply --server-side -f DIR`, then bench/kstatus-wait (sigs.k8s.io/cli-utils
//     v0.37.2, its DefaultStatusWatcher over client-go, built from the module proxy once and cached)
//     on the same files until every one of the 400 objects is Current; its peak RSS is the larger
//     of the two processes'. kstatus judges a Widget by its Reconciling and Stalled conditions, not
//     by Ready: right after it exits the Widgets' Ready conditions and the Deployments' Available
//     ones are counted, so an early end shows.
// ours and kubectl end when every Deployment is Available and every Widget Ready. The namespace and
// the operator are removed after each run; the CRD at the end.
//
// Then the set TUI's frame time (bench/lib/set-frames.mjs) over the objects of ours' last run, in a
// Node process of its own with the plugin's Node flags, at 160x45.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { connect } from '../dist/kube/index.js';
import { parseArgs } from './clients/common.mjs';
import { setFrameTimes } from './lib/set-frames.mjs';
import { fmtNum, fmtRatio, markdownTable, median } from './lib/stats.mjs';
import { findKubectl } from './startup.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const TIME = '/usr/bin/time';
const SETS = 100;
const GROUP = 'fixtures.informer-trace.dev';
const TIMEOUT = '5m';

const args = parseArgs(process.argv.slice(2));
const kubeconfig = args.kubeconfig ?? process.env.KUBECONFIG;
const reps = Number(args.reps ?? 3);
const FRAMES = Number(args.frames ?? 200);
const kubectl = findKubectl(args.kubectl);
const verbose = args.verbose === true || args.verbose === 'true';
const log = (line) => process.stderr.write(`${line}\n`);
const kube = kubeconfig ? connect({ kubeconfig }) : undefined;

/** A Go program's binary from its build.sh, built once (cached by a hash of its sources). */
function goBinary(buildScript) {
  const out = execFileSync('bash', [buildScript], { encoding: 'utf8' });
  return out.trim().split('\n').pop();
}

async function installCrd() {
  const file = join(root, 'test', 'fixtures', 'widget-operator', 'crd.yaml');
  execFileSync(kubectl, ['--kubeconfig', kubeconfig, 'apply', '--server-side', '-f', file], { stdio: verbose ? 'inherit' : 'ignore' });
  execFileSync(kubectl, ['--kubeconfig', kubeconfig, 'wait', '--for=condition=Established', `crd/widgets.${GROUP}`, '--timeout=60s'], {
    stdio: verbose ? 'inherit' : 'ignore',
  });
}

/** The set's objects in `ns`, as one multi-document YAML file per kind (a chart's templates, rendered). */
function writeSet(dir, ns) {
  const docs = { deployments: [], services: [], configmaps: [], widgets: [] };
  for (let i = 0; i < SETS; i++) {
    const name = `app-${String(i).padStart(3, '0')}`;
    docs.deployments.push({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: ns },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: name } },
        template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'registry.invalid/app:1' }] } },
      },
    });
    docs.services.push({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: ns }, spec: { selector: { app: name }, ports: [{ port: 80 }] } });
    docs.configmaps.push({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-settings`, namespace: ns }, data: { mode: 'fast' } });
    docs.widgets.push({
      apiVersion: `${GROUP}/v1`,
      kind: 'Widget',
      metadata: { name: `w-${String(i).padStart(3, '0')}`, namespace: ns },
      spec: { replicas: 1, message: name },
    });
  }
  for (const [kind, list] of Object.entries(docs)) writeFileSync(join(dir, `${kind}.yaml`), list.map((o) => JSON.stringify(o)).join('\n---\n'));
}

/** Runs argv under /usr/bin/time; resolves with its wall time, peak RSS (MiB), exit code and stdout. */
function timed(argv) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(TIME, ['-f', 'PEAK_RSS_KB=%M', ...argv], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('exit', (code) => {
      const wallMs = performance.now() - started;
      const rss = Number(/PEAK_RSS_KB=(\d+)/.exec(err)?.[1] ?? 0) / 1024;
      if (verbose) process.stderr.write(err.replace(/^/gm, `  ${argv[0].split('/').pop()}: `));
      resolve({ wallMs, rssMiB: rss, code, stdout: out, stderr: err });
    });
  });
}

async function startOperator(binary, ns) {
  const child = spawn(
    binary,
    ['--kubeconfig', kubeconfig, '--namespace', ns, '--metrics-bind-address', '127.0.0.1:0', '--leader-election-id', 'widget-operator'],
    {
      stdio: ['ignore', 'ignore', verbose ? 'inherit' : 'ignore'],
    },
  );
  const deadline = Date.now() + 60_000;
  for (;;) {
    const lease = await kube.client.json(`/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/widget-operator`).catch(() => undefined);
    if (lease?.spec?.holderIdentity) return child;
    if (Date.now() > deadline) throw new Error('the widget operator did not lead within 60s');
    await sleep(200);
  }
}

async function withNamespace(ns, fn) {
  await kube.client.json('/api/v1/namespaces', { method: 'POST', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } });
  for (let i = 0; ; i++) {
    const sa = await kube.client.json(`/api/v1/namespaces/${ns}/serviceaccounts/default`).catch(() => undefined);
    if (sa) break;
    if (i > 300) throw new Error('no default ServiceAccount');
    await sleep(100);
  }
  try {
    return await fn();
  } finally {
    await kube.client.json(`/api/v1/namespaces/${ns}`, { method: 'DELETE' }).catch(() => undefined);
  }
}

/** Right after a variant: how many of the namespace's Widgets are Ready and Deployments Available. */
async function readiness(ns) {
  const count = async (path, type) => {
    const list = await kube.client.json(path);
    const ok = list.items.filter((o) => o.status?.conditions?.some((c) => c.type === type && c.status === 'True')).length;
    return `${ok}/${list.items.length}`;
  };
  const [widgets, deployments] = await Promise.all([
    count(`/apis/${GROUP}/v1/namespaces/${ns}/widgets`, 'Ready'),
    count(`/apis/apps/v1/namespaces/${ns}/deployments`, 'Available'),
  ]);
  return { widgetsReady: widgets, deploymentsAvailable: deployments };
}

/** Runs argv under /usr/bin/time and throws unless it exits 0. */
async function step(argv, what) {
  const r = await timed(argv);
  if (r.code !== 0) {
    // A report on stdout (ours' -o json) says which objects were not ready, and why.
    let summary = '';
    try {
      summary = `\n${JSON.stringify(JSON.parse(r.stdout).summary, null, 1).slice(0, 4000)}`;
    } catch {
      summary = r.stdout ? `\n${r.stdout.slice(-2000)}` : '';
    }
    throw new Error(`${what} exited ${r.code}: ${r.stderr.slice(-2000)}${summary}`);
  }
  return r;
}

let kstatusWait;
let lastOursReport;

const variants = {
  async ours(dir) {
    const r = await step(
      [join(root, 'bin', 'kubectl-informer_trace'), '--apply', '-f', dir, '-o', 'json', '--timeout', TIMEOUT, '--kubeconfig', kubeconfig],
      'ours',
    );
    const report = JSON.parse(r.stdout);
    if (report.summary.outcome !== 'ready') throw new Error(`ours: ${report.summary.outcome}`);
    lastOursReport = report;
    return { wallMs: r.wallMs, rssMiB: r.rssMiB, allReadyMs: report.summary.allReadyMs, informers: report.summary.informers };
  },
  async kubectl(dir, ns) {
    const k = ['--kubeconfig', kubeconfig, '-n', ns];
    const steps = [
      [kubectl, ...k, 'apply', '--server-side', '-f', dir],
      [kubectl, ...k, 'wait', '--for=condition=Available', 'deployment', '--all', `--timeout=${TIMEOUT}`],
      [kubectl, ...k, 'wait', '--for=condition=Ready', `widgets.${GROUP}`, '--all', `--timeout=${TIMEOUT}`],
    ];
    let wallMs = 0;
    let rssMiB = 0;
    for (const argv of steps) {
      const r = await step(argv, argv.slice(5, 7).join(' '));
      wallMs += r.wallMs;
      rssMiB = Math.max(rssMiB, r.rssMiB);
    }
    return { wallMs, rssMiB };
  },
  async kstatus(dir, ns) {
    const apply = await step([kubectl, '--kubeconfig', kubeconfig, '-n', ns, 'apply', '--server-side', '-f', dir], 'kubectl apply');
    const wait = await step([kstatusWait, '--kubeconfig', kubeconfig, '--namespace', ns, '--timeout', TIMEOUT, dir], 'kstatus-wait');
    const own = JSON.parse(wait.stdout.trim().split('\n').pop());
    return {
      wallMs: apply.wallMs + wait.wallMs,
      rssMiB: Math.max(apply.rssMiB, wait.rssMiB),
      applyRssMiB: apply.rssMiB,
      kstatusRssMiB: wait.rssMiB,
      applyMs: apply.wallMs,
      waitMs: wait.wallMs,
      currentMs: own.currentMs,
      syncMs: own.syncMs,
      events: own.events,
      objects: own.objects,
      ...(await readiness(ns)),
    };
  },
};

/** The set TUI's frame time over a `-o json` report, in a Node process with the plugin's flags (bin/kubectl-informer_trace's). */
function framesInChild(report, work) {
  const file = join(work, 'ours-report.json');
  writeFileSync(file, JSON.stringify(report));
  const out = execFileSync(process.execPath, ['--max-semi-space-size=2', fileURLToPath(import.meta.url), '--frames-of', file, '--frames', String(FRAMES)], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  return JSON.parse(out);
}

function framesTable(f) {
  return markdownTable(
    [`set TUI at ${f.width}x${f.height}, ${f.objects} objects`, 'median ms', 'p95 ms', 'max ms', 'CPU ms/frame'],
    f.scenarios.map((s) => [s.name, fmtNum(s.median), fmtNum(s.p95), fmtNum(s.max), fmtNum(s.cpuPerFrame)]),
  );
}

async function main() {
  if (!kubeconfig) throw new Error('--kubeconfig FILE (or KUBECONFIG) is needed');
  const operator = goBinary(join(root, 'test', 'fixtures', 'widget-operator', 'build.sh'));
  // --only ours (or a comma list): those variants alone, e.g. ours' memory in a ~1.5 min repetition.
  const only = typeof args.only === 'string' ? args.only.split(',').map((n) => n.trim()) : undefined;
  for (const n of only ?? []) if (!(n in variants)) throw new Error(`--only: no variant ${n} (${Object.keys(variants).join(', ')})`);
  const names = Object.keys(variants).filter((n) => !only || only.includes(n));
  if (names.includes('kstatus')) kstatusWait = goBinary(join(here, 'kstatus-wait', 'build.sh'));
  await installCrd();
  const samples = Object.fromEntries(names.map((n) => [n, []]));
  const work = mkdtempSync(join(tmpdir(), 'bench-set-'));
  let frames;
  try {
    for (let rep = 0; rep < reps; rep++) {
      const order = names.map((_, i) => names[(i + rep) % names.length]);
      for (const name of order) {
        const ns = `bench-set-${name}-${rep}-${Date.now().toString(36)}`;
        const dir = join(work, ns);
        execFileSync('mkdir', ['-p', dir]);
        writeSet(dir, ns);
        await withNamespace(ns, async () => {
          const op = await startOperator(operator, ns);
          try {
            await sleep(2_000);
            const s = await variants[name](dir, ns);
            samples[name].push(s);
            const extra = s.allReadyMs
              ? `, all ready ${fmtNum(s.allReadyMs / 1000, 2)} s after the first write`
              : s.currentMs
                ? ` (apply ${fmtNum(s.applyMs / 1000, 2)} s, kstatus ${fmtNum(s.waitMs / 1000, 2)} s, ${s.objects} Current ${fmtNum(s.currentMs / 1000, 2)} s after its start; then ${s.widgetsReady} Widgets Ready, ${s.deploymentsAvailable} Deployments Available; RSS apply ${fmtNum(s.applyRssMiB, 0)}, kstatus ${fmtNum(s.kstatusRssMiB, 0)} MiB)`
                : '';
            log(`rep ${rep + 1} ${name}: ${fmtNum(s.wallMs / 1000, 2)} s wall${extra}, peak RSS ${fmtNum(s.rssMiB, 0)} MiB (load ${loadavg()[0].toFixed(2)})`);
          } finally {
            op.kill('SIGTERM');
          }
        });
        await sleep(3_000);
      }
    }
    if (lastOursReport) frames = framesInChild(lastOursReport, work);
  } finally {
    rmSync(work, { recursive: true, force: true });
    await kube.client.json(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${GROUP}`, { method: 'DELETE' }).catch(() => undefined);
  }
  const med = (n, f) => median(samples[n].map(f));
  const range = (n, f) => {
    const xs = samples[n].map(f);
    return xs.length > 1 ? ` (${fmtNum(Math.min(...xs) / 1000, 1)}–${fmtNum(Math.max(...xs) / 1000, 1)})` : '';
  };
  const LABELS = {
    ours: 'ours: apply and trace every object',
    kubectl: 'kubectl apply, then kubectl wait ×2',
    kstatus: 'kubectl apply, then the kstatus watcher',
  };
  const wall = Object.fromEntries(names.map((n) => [n, med(n, (s) => s.wallMs)]));
  const rows = names.map((n) => [
    LABELS[n],
    `${fmtNum(wall[n] / 1000, 2)} s${range(n, (s) => s.wallMs)}`,
    names.length > 1 ? fmtRatio(wall[n] / Math.min(...names.filter((o) => o !== n).map((o) => wall[o]))) : '–',
    `${fmtNum(
      med(n, (s) => s.rssMiB),
      0,
    )} MiB`,
  ]);
  const table = markdownTable(['variant (spawn to exit, median)', 'wall', '÷ the fastest other', 'peak RSS'], rows);
  const result = {
    machine: { cpus: cpus().length, model: cpus()[0]?.model, memGiB: Math.round(totalmem() / 2 ** 30) },
    reps,
    samples,
    oursAllReadyMs: med('ours', (s) => s.allReadyMs),
    informers: samples.ours[0]?.informers,
    frames: frames && { ...frames, sample: undefined },
    // Ours' last report: `--frames-of` on this file measures the TUI's frames again.
    oursReport: lastOursReport,
  };
  const ks = samples.kstatus ?? [];
  process.stdout.write(
    [
      table,
      `ours, first write to all ready (its own figure): ${fmtNum(result.oursAllReadyMs / 1000, 2)} s; informers: ${result.informers}`,
      ks.length === 0
        ? ''
        : `kstatus: every object Current ${fmtNum(med('kstatus', (s) => s.currentMs) / 1000, 2)} s after the watcher's start (synced at ${fmtNum(
            med('kstatus', (s) => s.syncMs),
            0,
          )} ms); at its exit Widgets Ready ${ks.map((s) => s.widgetsReady).join(', ')}, Deployments Available ${ks.map((s) => s.deploymentsAvailable).join(', ')}; RSS kubectl apply ${fmtNum(
            med('kstatus', (s) => s.applyRssMiB),
            0,
          )} MiB, kstatus ${fmtNum(
            med('kstatus', (s) => s.kstatusRssMiB),
            0,
          )} MiB`,
      frames ? `\n${framesTable(frames)}\n\nthe frame (finished, in apply order):\n${frames.sample}` : '',
      '',
    ].join('\n'),
  );
  if (args.json) writeFileSync(args.json, JSON.stringify(result, null, 2));
}

/** --frames-of FILE (a `-o json` report, or this script's --json): the set TUI's frame time alone; JSON on stdout. */
async function framesOnly(file) {
  const saved = JSON.parse(readFileSync(file, 'utf8'));
  const f = await setFrameTimes((saved.oursReport ?? saved).objects, { width: 160, height: 45, frames: FRAMES });
  process.stdout.write(`${JSON.stringify(f)}\n`);
}

(args['frames-of'] ? framesOnly(args['frames-of']) : main()).catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
