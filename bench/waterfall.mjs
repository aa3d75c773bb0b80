// Waterfall frame time for a large rollout (not a timed test).
//
//   npm run build && node bench/waterfall.mjs [--replicas 1000] [--frames 200]
//
// A synthetic rolling update of a Deployment with N replicas (tools/testing/synthetic-trace.ts:
// N new Pods through created → scheduled → initialized → containers ready → ready in waves of 25%,
// N old Pods terminating and deleted, the ReplicaSets' scale steps, convergence: 7N + ~10 hops).
// For each terminal size a frame is what the TUI redraws: build the view model from the trace
// (grouping lanes to fit the rows) and draw it, as text (`-o waterfall`) and as the ink pane.
// "live" frames replay the rollout as it grows: each frame sees a longer prefix of the hops.
//
// Imports the built output (dist/), so it measures what ships; the synthetic trace is loaded from
// its TypeScript source with Node's type stripping (Node ≥ 22.18). Prints one Markdown table on
// stdout: per scenario the median, p95 and max frame time after a warm-up, and the CPU the frames
// took; the machine and the process's RSS go to stderr.
import { cpus, loadavg, totalmem } from 'node:os';
import { createElement } from 'react';
import { renderToString } from 'ink';
import { buildWaterfallView, waterfallLaneRows } from '../dist/view/waterfall-view.js';
import { waterfallText } from '../dist/output/waterfall-text.js';
import { WaterfallPane } from '../dist/tui/waterfall-pane.js';
import { syntheticRollout } from '../tools/testing/synthetic-trace.ts';
import { parseArgs } from './clients/common.mjs';
import { timeFrames } from './lib/frame-time.mjs';
import { fmtNum, markdownTable } from './lib/stats.mjs';

const args = parseArgs(process.argv.slice(2));
const REPLICAS = Number(args.replicas ?? 1000);
const FRAMES = Number(args.frames ?? 200);
const WARMUP = 20;
if (!Number.isInteger(REPLICAS) || REPLICAS < 1 || !Number.isInteger(FRAMES) || FRAMES < 1) {
  process.stderr.write('usage: node bench/waterfall.mjs [--replicas N] [--frames N]   (N >= 1)\n');
  process.exit(2);
}

const trace = syntheticRollout(REPLICAS);
const end = trace.trigger.at + Math.max(...trace.hops.map((h) => h.sinceTriggerMs));

const measure = (frame) => timeFrames(frame, { warmup: WARMUP, frames: FRAMES });

/** The trace as the TUI sees it mid-rollout: the first k of the hops, still running. */
function prefix(i) {
  const k = Math.max(1, Math.round((((i % 20) + 1) / 20) * trace.hops.length));
  const hops = trace.hops.slice(0, k);
  const done = k === trace.hops.length;
  return { snapshot: { ...trace, hops, outcome: done ? trace.outcome : undefined }, now: trace.trigger.at + hops[hops.length - 1].sinceTriggerMs };
}

const rows = [];
let shown;
for (const [width, height] of [
  [80, 24],
  [160, 45],
]) {
  const lanes = waterfallLaneRows(height);
  const size = `${width}x${height}`;
  const scenarios = [
    ['view model only', () => buildWaterfallView(trace, { maxLanes: lanes, now: end })],
    ['view model + text (-o waterfall)', () => waterfallText(buildWaterfallView(trace, { maxLanes: lanes, now: end }), { width })],
    [
      'view model + ink pane',
      () => renderToString(createElement(WaterfallPane, { view: buildWaterfallView(trace, { maxLanes: lanes, now: end }), width, height }), { columns: width }),
    ],
    [
      'live: growing trace, view model + ink pane',
      (i) => {
        const p = prefix(i);
        return renderToString(createElement(WaterfallPane, { view: buildWaterfallView(p.snapshot, { maxLanes: lanes, now: p.now }), width, height }), {
          columns: width,
        });
      },
    ],
  ];
  for (const [name, frame] of scenarios) {
    const m = measure(frame);
    rows.push([
      `${name}, ${size}`,
      `${fmtNum(trace.hops.length, 0)} hops`,
      fmtNum(m.median),
      fmtNum(m.p95),
      fmtNum(m.max),
      fmtNum(m.cpuPerFrame),
      `${fmtNum(m.cpuShare * 100, 0)}%`,
    ]);
  }
  if (width === 80) shown = waterfallText(buildWaterfallView(trace, { maxLanes: lanes }), { width });
}

const mem = process.memoryUsage();
process.stderr.write(
  [
    `node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${fmtNum(totalmem() / 2 ** 30, 0)} GiB, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
    `${REPLICAS} replicas: ${trace.hops.length} hops; ${FRAMES} frames per scenario after ${WARMUP} warm-up frames`,
    `RSS at the end ${fmtNum(mem.rss / 2 ** 20, 0)} MiB, heap used ${fmtNum(mem.heapUsed / 2 ** 20, 0)} MiB`,
    '',
    'the 80x24 text frame:',
    shown,
  ].join('\n'),
);
process.stdout.write(`${markdownTable(['scenario', 'input', 'median ms', 'p95 ms', 'max ms', 'CPU ms/frame', 'CPU while redrawing'], rows)}\n`);
