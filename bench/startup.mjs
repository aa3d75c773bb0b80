// Startup of one-shot commands, side by side with kubectl, in paired runs (BENCHMARKS.md, "Startup").
//
//   npm run build && node bench/startup.mjs --kubeconfig FILE [--runs 10] [--installs 3] [--kubectl PATH] [--before DIR] [--pods-namespace NS [--pods-output json,yaml]] [--verbose]
//
// In the namespace bench-startup it creates (once) a Deployment `web` with one replica; no
// controller needs to run. Then, run after run, in an order rotated each run:
//   - kubectl get deploy -n bench-startup                               (the reference)
//   - kubectl informer-trace cache deploy -n bench-startup              (bin/, as installed)
//   - the same, V8's compile cache off (NODE_DISABLE_COMPILE_CACHE=1)
//   - the same through dist/main.js, the modules tsc wrote, unbundled (what bin/ ran before)
//   - kubectl informer-trace deploy/web -n bench-startup --watch: until it prints "watching …"
// With --pods-namespace NS (a namespace that already holds many Pods, e.g. the 10,000 of the sync
// phase), also `kubectl get pods -n NS` against `kubectl informer-trace cache pods -n NS`: a
// one-shot command whose time is the list and the table, not the startup. With --pods-output
// json,yaml as well, the same two with `-o json` and `-o yaml` (the whole List written out;
// kubectl takes 10–30 s there at 10,000 Pods, so these rows are not part of `npm run bench`).
// With --before DIR (another checkout, built), its bin/ runs the same two commands, for a before/after
// in one run. Wall time is from spawn to exit (to the "watching" line for the trace); peak RSS is what
// /usr/bin/time -f %M says (none without GNU time). Then the first run after an install, --installs (3)
// times: the package as `npm pack` makes it (from this checkout, built), installed by
// `npm i -g --prefix` into a new folder, its bin run once with TMPDIR a new empty folder (so V8's
// compile cache, in the system's temporary folder, is empty) and no discovery of its own kept on
// disk (kubectl's, which the kubectl runs wrote, is there), once more (warm), and once more as a
// new user of kubectl too (no discovery kept by either, another empty TMPDIR).
//
// Prints a Markdown table (median, range, ratio to kubectl) and, with --json FILE, the samples.
// run.mjs runs it as its `startup` phase.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { connect } from '../dist/kube/index.js';
import { PLUGIN_NODE_FLAGS } from '../build/tools/packaging/node-flags.js';
import { parseArgs } from './clients/common.mjs';
import { fmtNum, fmtRatio, markdownTable, median } from './lib/stats.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
export const STARTUP_NS = 'bench-startup';
const TIME = '/usr/bin/time';
const RUN_TIMEOUT_MS = 60_000;

/** kubectl: --kubectl, else the one built with the local control plane, else the one on PATH. */
export function findKubectl(explicit) {
  if (explicit) return explicit;
  const cache = join(homedir(), '.cache', 'informer-trace');
  const built = existsSync(cache)
    ? readdirSync(cache)
        .filter((d) => d.startsWith('k8s-'))
        .map((d) => join(cache, d, 'bin', 'kubectl'))
        .find((f) => existsSync(f))
    : undefined;
  return built ?? 'kubectl';
}

/** The namespace and its one-replica Deployment, created when missing. */
export async function ensureTarget(kubeconfig) {
  const { client } = connect({ kubeconfig });
  const post = async (path, body) => {
    try {
      await client.json(path, { method: 'POST', body });
    } catch (err) {
      if (err?.code !== 409) throw err;
    }
  };
  await post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: STARTUP_NS } });
  const labels = { app: 'web' };
  await post(`/apis/apps/v1/namespaces/${STARTUP_NS}/deployments`, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: STARTUP_NS },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'registry.k8s.io/pause:3.10' }] } },
    },
  });
}

/**
 * Runs argv once; resolves with { ms, peakRssKB }. With `until`, the run ends (SIGINT to its
 * process group) at the first stderr line matching it, and ms is the time to that line. With
 * `stdout`, its standard output is kept and given as `stdout` too; `okCodes`: the exit codes of a
 * run that counts (without `until`).
 */
export function once(argv, { env = {}, until, verbose, stdout = false, okCodes = [0] } = {}) {
  return new Promise((resolve, reject) => {
    const timeFile = join(tmpdir(), `informer-trace-startup-${process.pid}-${Math.random().toString(36).slice(2)}.time`);
    const useTime = existsSync(TIME);
    const cmd = useTime ? TIME : argv[0];
    const args = useTime ? ['-f', '%M', '-o', timeFile, ...argv] : argv.slice(1);
    const t0 = performance.now();
    const child = spawn(cmd, args, { stdio: ['ignore', stdout ? 'pipe' : 'ignore', 'pipe'], env: { ...process.env, ...env }, detached: true });
    let marked;
    let err = '';
    let out = '';
    let outClosed = Promise.resolve();
    if (stdout) {
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (d) => (out += d));
      outClosed = new Promise((r) => child.stdout.on('close', r));
    }
    const timer = setTimeout(() => process.kill(-child.pid, 'SIGKILL'), RUN_TIMEOUT_MS);
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d) => {
      err += d;
      if (verbose) process.stderr.write(d);
      if (until && marked === undefined && until.test(err)) {
        marked = performance.now() - t0;
        process.kill(-child.pid, 'SIGINT');
      }
    });
    child.on('error', reject);
    child.on('exit', async (code) => {
      const ms = performance.now() - t0;
      clearTimeout(timer);
      await outClosed; // the last of its output, read after it exited
      let peakRssKB = NaN;
      try {
        peakRssKB = Number(readFileSync(timeFile, 'utf8').trim().split('\n').pop());
        rmSync(timeFile, { force: true });
      } catch {
        // no GNU time
      }
      if (until ? marked === undefined : !okCodes.includes(code)) {
        reject(new Error(`${argv.join(' ')} exited with ${code}${until ? ` before printing ${until}` : ''}: ${err.trim().split('\n').slice(-3).join(' | ')}`));
        return;
      }
      resolve({ ms: until ? marked : ms, peakRssKB, ...(stdout ? { stdout: out } : {}) });
    });
  });
}

/** The variants, each a function running it once. */
export function startupVariants({ kubeconfig, kubectl, verbose, before, podsNamespace, podsOutputs = [] }) {
  const node = process.execPath;
  const plugin = join(root, 'bin', 'kubectl-informer_trace');
  const env = { KUBECONFIG: kubeconfig };
  const unbundled = `import(${JSON.stringify(join(root, 'dist', 'main.js'))}).then((m) => m.informerTrace(process.argv.slice(1))).then((c) => process.exit(c))`;
  const cache = ['cache', 'deploy', '-n', STARTUP_NS];
  const trace = ['deploy/web', '-n', STARTUP_NS, '--watch', '-o', 'table'];
  const earlier = before ? join(before, 'bin', 'kubectl-informer_trace') : undefined;
  return [
    { client: 'kubectl get deploy', run: () => once([kubectl, 'get', 'deploy', '-n', STARTUP_NS], { env, verbose }) },
    { client: 'ours: cache deploy', run: () => once([plugin, ...cache], { env, verbose }) },
    { client: 'ours: cache deploy, compile cache off', run: () => once([plugin, ...cache], { env: { ...env, NODE_DISABLE_COMPILE_CACHE: '1' }, verbose }) },
    {
      client: 'ours: cache deploy, unbundled dist/',
      run: () => once([node, ...PLUGIN_NODE_FLAGS, '--input-type=module', '-e', unbundled, ...cache], { env, verbose }),
    },
    { client: 'ours: trace deploy/web --watch, until "watching"', run: () => once([plugin, ...trace], { env, until: /^watching /m, verbose }) },
    ...(podsNamespace
      ? [
          { client: 'kubectl get pods', run: () => once([kubectl, 'get', 'pods', '-n', podsNamespace], { env, verbose }) },
          { client: 'ours: cache pods', run: () => once([plugin, 'cache', 'pods', '-n', podsNamespace], { env, verbose }) },
          ...podsOutputs.flatMap((o) => [
            { client: `kubectl get pods -o ${o}`, run: () => once([kubectl, 'get', 'pods', '-n', podsNamespace, '-o', o], { env, verbose }) },
            { client: `ours: cache pods -o ${o}`, run: () => once([plugin, 'cache', 'pods', '-n', podsNamespace, '-o', o], { env, verbose }) },
            ...(earlier
              ? [{ client: `before: cache pods -o ${o}`, run: () => once([earlier, 'cache', 'pods', '-n', podsNamespace, '-o', o], { env, verbose }) }]
              : []),
          ]),
        ]
      : []),
    ...(earlier
      ? [
          { client: 'before: cache deploy', run: () => once([earlier, ...cache], { env, verbose }) },
          { client: 'before: trace deploy/web --watch, until "watching"', run: () => once([earlier, ...trace], { env, until: /^watching /m, verbose }) },
          ...(podsNamespace ? [{ client: 'before: cache pods', run: () => once([earlier, 'cache', 'pods', '-n', podsNamespace], { env, verbose }) }] : []),
        ]
      : []),
  ];
}

/** One warm-up run each, then `runs` paired runs, the order rotated each run; samples per variant. */
export async function measureStartup({ kubeconfig, kubectl, runs, installs = 3, log = () => {}, verbose = false, before, podsNamespace, podsOutputs }) {
  await ensureTarget(kubeconfig);
  const variants = startupVariants({ kubeconfig, kubectl, verbose, before, podsNamespace, podsOutputs });
  for (const v of variants) await v.run();
  const samples = new Map(variants.map((v) => [v.client, []]));
  for (let r = 0; r < runs; r++) {
    for (let k = 0; k < variants.length; k++) {
      const v = variants[(k + r) % variants.length];
      const s = await v.run();
      samples.get(v.client).push(s);
    }
    log(`startup run ${r + 1}/${runs}: ${variants.map((v) => `${v.client} ${fmtNum(samples.get(v.client).at(-1).ms, 0)} ms`).join(', ')}`);
  }
  // The first run after `npm i -g`, and the second.
  const first = [];
  const second = [];
  const noKubectlCache = [];
  const work = mkdtempSync(join(tmpdir(), 'informer-trace-install-'));
  try {
    const tarball = packed(work);
    for (let r = 0; r < installs; r++) {
      const prefix = join(work, `prefix-${r}`);
      const tmp = join(work, `tmp-${r}`);
      mkdirSync(tmp);
      execFileSync('npm', ['install', '--global', '--prefix', prefix, '--no-audit', '--no-fund', '--offline', tarball], { stdio: 'ignore' });
      const installed = [join(prefix, 'bin', 'kubectl-informer_trace'), 'cache', 'deploy', '-n', STARTUP_NS];
      // A new user of the plugin: no compile cache, and no discovery of its own kept from earlier
      // runs (src/kube/discovery-cache.ts), only kubectl's (~/.kube/cache, from the kubectl runs above).
      const env = { KUBECONFIG: kubeconfig, TMPDIR: tmp, NODE_COMPILE_CACHE: undefined, INFORMER_TRACE_CACHE_DIR: join(tmp, 'cache') };
      first.push(await once(installed, { env, verbose }));
      second.push(await once(installed, { env, verbose }));
      // A new user of kubectl too: no discovery kept by either.
      const bare = join(work, `bare-${r}`);
      mkdirSync(bare);
      const none = { ...env, TMPDIR: bare, INFORMER_TRACE_CACHE_DIR: join(bare, 'cache'), KUBECACHEDIR: join(bare, 'kube-cache') };
      noKubectlCache.push(await once(installed, { env: none, verbose }));
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  samples.set('ours: cache deploy, first run after npm i -g', first);
  samples.set('ours: cache deploy, second run after npm i -g', second);
  samples.set('ours: cache deploy, first run after npm i -g, no kubectl cache either', noKubectlCache);
  return samples;
}

/** The tarball `npm pack` makes of this checkout (built beforehand: no prepack build here), in `dir`. */
function packed(dir) {
  const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: root, encoding: 'utf8' });
  return join(dir, JSON.parse(out)[0].filename);
}

/** Table rows: median wall time and peak RSS of each variant, with ratios to kubectl (get pods, in the same -o, for the pods rows). */
export function startupRows(samples) {
  const rows = [];
  for (const [client, list] of samples) {
    const pods = client.match(/ pods( -o \w+)?$/);
    const ref = samples.get(pods ? `kubectl get pods${pods[1] ?? ''}` : 'kubectl get deploy');
    const refMs = median(ref.map((s) => s.ms));
    const refRss = median(ref.map((s) => s.peakRssKB / 1024));
    const ms = list.map((s) => s.ms);
    const rss = list.map((s) => s.peakRssKB / 1024).filter(Number.isFinite);
    rows.push([
      'startup: wall time',
      client,
      `${fmtNum(median(ms), 0)} ms`,
      `${fmtNum(Math.min(...ms), 0)}–${fmtNum(Math.max(...ms), 0)}`,
      fmtRatio(median(ms) / refMs),
      String(list.length),
    ]);
    if (rss.length)
      rows.push([
        'startup: peak RSS',
        client,
        `${fmtNum(median(rss), 0)} MiB`,
        `${fmtNum(Math.min(...rss), 0)}–${fmtNum(Math.max(...rss), 0)}`,
        fmtRatio(median(rss) / refRss),
        String(rss.length),
      ]);
  }
  return rows;
}

export const STARTUP_HEADER = ['measurement', 'client', 'median', 'range', '÷ kubectl', 'n'];

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = parseArgs(process.argv.slice(2));
  const runs = Number(args.runs ?? 10);
  const installs = Number(args.installs ?? 3);
  if (!args.kubeconfig || !Number.isInteger(runs) || runs < 1 || !Number.isInteger(installs) || installs < 1) {
    process.stderr.write(
      'usage: node bench/startup.mjs --kubeconfig FILE [--runs N] [--installs N] [--kubectl PATH] [--before DIR] [--pods-namespace NS [--pods-output json,yaml]] [--json FILE] [--verbose]\n',
    );
    process.exit(2);
  }
  const log = (s) => process.stderr.write(`[startup ${new Date().toISOString().slice(11, 19)}] ${s}\n`);
  const podsOutputs = args['pods-output'] ? String(args['pods-output']).split(',') : [];
  if (podsOutputs.some((o) => o !== 'json' && o !== 'yaml') || (podsOutputs.length && !args['pods-namespace'])) {
    process.stderr.write('--pods-output takes json, yaml or json,yaml, and needs --pods-namespace\n');
    process.exit(2);
  }
  measureStartup({
    kubeconfig: args.kubeconfig,
    kubectl: findKubectl(args.kubectl),
    runs,
    installs,
    log,
    verbose: args.verbose === 'true',
    before: args.before,
    podsNamespace: args['pods-namespace'],
    podsOutputs,
  }).then(
    (samples) => {
      process.stdout.write(`\n${markdownTable(STARTUP_HEADER, startupRows(samples))}\n`);
      if (args.json) writeFileSync(args.json, JSON.stringify(Object.fromEntries(samples), null, 1));
      process.exit(0);
    },
    (err) => {
      process.stderr.write(`startup: ${err.message}\n`);
      process.exit(1);
    },
  );
}
