// `cache` live view frame time on a large cache (not a timed test).
//
//   npm run build && node bench/cache-view.mjs [--pods 10000] [--frames 100]
//
// A real SharedIndexInformer (dist/) fed by an in-memory ListerWatcher: N Pods over 20 namespaces
// and 50 nodes, an `app` label with 100 values, indexed by app and node as
// `cache pods -A --index app=metadata.labels.app --index node=spec.nodeName` does. A frame is
// what the TUI redraws: the whole component (the cache listed, sorted and filtered by key, the rows
// in view formatted, the index values counted, the delta pane, the counters) rendered by ink to a
// string at the terminal's size. Between frames one Pod changes through the watch (a label moves
// to another app value), so each frame shows a new delta and moved index counts.
//
// Prints one Markdown table on stdout: per terminal size the median, p95 and max frame time after
// a warm-up (React's production build, as shipped); the machine goes to stderr.
import { cpus, loadavg, totalmem } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from './clients/common.mjs';
import { fmtNum, markdownTable, median, percentile } from './lib/stats.mjs';

// What ships is bundled with React's production build (tools/packaging/bundle.ts); React picks its
// build when first loaded, so this is set before the imports below.
process.env.NODE_ENV ??= 'production';
// A terminal's size comes from stdout; renderToString has none, and ink would ask `tput` (a
// process per frame) unless the environment says it.
process.env.COLUMNS ??= '250';
process.env.LINES ??= '70';
const { createElement } = await import('react');
const { renderToString } = await import('ink');
const { fieldPathIndexFunc, SharedIndexInformer } = await import('../dist/informer/index.js');
const { CacheModel } = await import('../dist/live/cache-model.js');
const { CacheApp } = await import('../dist/tui/cache-app.js');

const args = parseArgs(process.argv.slice(2));
const PODS = Number(args.pods ?? 10_000);
const FRAMES = Number(args.frames ?? 100);
const WARMUP = 10;
if (!Number.isInteger(PODS) || PODS < 1 || !Number.isInteger(FRAMES) || FRAMES < 1) {
  process.stderr.write('usage: node bench/cache-view.mjs [--pods N] [--frames N]   (N >= 1)\n');
  process.exit(2);
}

const created = new Date(Date.now() - 3_600_000).toISOString();
function pod(i, rv, app = `app-${i % 100}`) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { namespace: `ns-${i % 20}`, name: `pod-${i}`, uid: `uid-${i}`, resourceVersion: String(rv), creationTimestamp: created, labels: { app } },
    spec: { nodeName: `node-${i % 50}`, containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
  };
}

/** A ListerWatcher over an array, whose one watch delivers what `emit` pushes. */
function memoryListerWatcher(items) {
  let push;
  const queue = [];
  return {
    description: 'pods in all namespaces (in memory)',
    async list() {
      return { items: items.map((o) => structuredClone(o)), resourceVersion: String(PODS) };
    },
    async watch(_opts, signal) {
      let stopped = false;
      return {
        stop() {
          stopped = true;
          push?.();
        },
        async *[Symbol.asyncIterator]() {
          while (!stopped && !signal?.aborted) {
            if (queue.length) yield queue.shift();
            else await new Promise((r) => (push = r));
          }
        },
      };
    },
    emit(event) {
      queue.push(event);
      push?.();
    },
  };
}

const lw = memoryListerWatcher(Array.from({ length: PODS }, (_, i) => pod(i, i + 1)));
const informer = new SharedIndexInformer(lw, { indexers: { app: fieldPathIndexFunc('metadata.labels.app'), node: fieldPathIndexFunc('spec.nodeName') } });
const model = new CacheModel(informer, { indexNames: ['app', 'node'] });
const stop = new AbortController();
const running = informer.run(stop.signal);
const t0 = performance.now();
while (!informer.hasSynced()) await new Promise((r) => setTimeout(r, 10));
const syncMs = performance.now() - t0;

let rv = PODS;
/** One Pod changes through the watch; resolves once the informer applied it. */
async function change(i) {
  const seq = model.newestSeq();
  lw.emit({ type: 'MODIFIED', object: pod(i % PODS, ++rv, `app-${(i * 7) % 100}`) });
  while (model.newestSeq() === seq) await new Promise((r) => setImmediate(r));
}

async function measure(width, height) {
  const frame = () => renderToString(createElement(CacheApp, { model, title: 'pods in all namespaces', namespaced: true, width, height }), { columns: width });
  const times = [];
  let last = '';
  for (let i = 0; i < WARMUP + FRAMES; i++) {
    await change(i);
    const s = performance.now();
    last = frame();
    if (i >= WARMUP) times.push(performance.now() - s);
  }
  return { median: median(times), p95: percentile(times, 95), max: Math.max(...times), last };
}

const rows = [];
let shown = '';
for (const [width, height] of [
  [80, 24],
  [160, 45],
  [250, 70],
]) {
  const m = await measure(width, height);
  rows.push([`${width}x${height}`, `${fmtNum(PODS, 0)} Pods`, fmtNum(m.median), fmtNum(m.p95), fmtNum(m.max)]);
  if (width === 80) shown = m.last;
}
stop.abort();
await running;

const mem = process.memoryUsage();
process.stderr.write(
  [
    `node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${fmtNum(totalmem() / 2 ** 30, 0)} GiB, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
    `${PODS} Pods synced in ${fmtNum(syncMs, 0)} ms; ${FRAMES} frames per size after ${WARMUP} warm-up frames, one watched change before each`,
    `RSS at the end ${fmtNum(mem.rss / 2 ** 20, 0)} MiB, heap used ${fmtNum(mem.heapUsed / 2 ** 20, 0)} MiB`,
    '',
    'the 80x24 frame:',
    shown,
    '',
  ].join('\n'),
);
process.stdout.write(`${markdownTable(['terminal', 'cache', 'median ms', 'p95 ms', 'max ms'], rows)}\n`);
