// Work queue throughput benchmark (not a timed test).
//
//   npm run build && node --max-semi-space-size=2 bench/workqueue.mjs [--runs 7]
//
// Imports the built output, so it measures what ships; the queue runs inside the plugin, whose
// Node flags (tools/packaging/node-flags.ts) run.mjs gives it, and Node's defaults beside them.
// Scenarios:
// - Add/Get/Done with 1, 100 and 100,000 distinct keys: each round adds max(keys, 1000) keys
//   round-robin (repeats collapse while waiting), then drains the queue with get/done. 200,000
//   adds per run. "calls" counts every add, get and done.
// - AddRateLimited/Forget over a RateLimitingQueue with client-go's default controller rate
//   limiter, 1,000 and 100,000 distinct keys, one forget per four adds. The clock's timers never
//   fire, so this measures the limiter and the delay heap, not timer callbacks.
//
// Prints one table to stdout: median calls/s over the runs (after one warm-up run), with min
// and max; the environment goes to stderr.
import { performance } from 'node:perf_hooks';
import { defaultControllerRateLimiter, Queue, RateLimitingQueue } from '../dist/workqueue/index.js';

const args = process.argv.slice(2);
const runsArg = args.indexOf('--runs');
const RUNS = runsArg >= 0 ? Number(args[runsArg + 1]) : 7;
if (!Number.isInteger(RUNS) || RUNS < 1) {
  process.stderr.write('usage: node bench/workqueue.mjs [--runs N]   (N >= 1)\n');
  process.exit(2);
}

const ADDS_PER_RUN = 200_000;
const RATE_LIMITED_CALLS_PER_RUN = 200_000;

/** Real time, but timers are recorded and never fire: nothing runs behind the measurement. */
const benchClock = {
  now: () => performance.timeOrigin + performance.now(),
  setTimer: () => ({ stop: () => true }),
  sleep: () => Promise.resolve(),
};

const keysOf = (n) => Array.from({ length: n }, (_, i) => `namespace-${i % 97}/object-${i}`);

async function addGetDone(distinct) {
  const keys = keysOf(distinct);
  const q = new Queue({ clock: benchClock });
  const perRound = Math.max(distinct, 1000);
  let calls = 0;
  let items = 0;
  let next = 0;
  const start = performance.now();
  for (let added = 0; added < ADDS_PER_RUN; ) {
    const end = Math.min(ADDS_PER_RUN, added + perRound);
    for (; added < end; added++) {
      q.add(keys[next]);
      next = next + 1 === distinct ? 0 : next + 1;
    }
    while (q.len() > 0) {
      const r = await q.get();
      q.done(r.item);
      items++;
    }
  }
  const seconds = (performance.now() - start) / 1000;
  calls = ADDS_PER_RUN + 2 * items;
  q.shutDown();
  return { calls, items, seconds };
}

async function addRateLimitedForget(distinct) {
  const keys = keysOf(distinct);
  const q = new RateLimitingQueue(defaultControllerRateLimiter(benchClock), { clock: benchClock });
  let calls = 0;
  let next = 0;
  const start = performance.now();
  for (let i = 0; i < RATE_LIMITED_CALLS_PER_RUN; i++) {
    const key = keys[next];
    next = next + 1 === distinct ? 0 : next + 1;
    q.addRateLimited(key);
    calls++;
    if ((i & 3) === 3) {
      q.forget(key);
      calls++;
    }
  }
  const seconds = (performance.now() - start) / 1000;
  q.shutDown();
  return { calls, items: 0, seconds };
}

const scenarios = [
  { name: 'Add/Get/Done', keys: 1, run: () => addGetDone(1) },
  { name: 'Add/Get/Done', keys: 100, run: () => addGetDone(100) },
  { name: 'Add/Get/Done', keys: 100_000, run: () => addGetDone(100_000) },
  { name: 'AddRateLimited/Forget', keys: 1_000, run: () => addRateLimitedForget(1_000) },
  { name: 'AddRateLimited/Forget', keys: 100_000, run: () => addRateLimitedForget(100_000) },
];

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};
const fmt = (n) => Math.round(n).toLocaleString('en-US');

process.stderr.write(`node ${process.version} ${process.platform}/${process.arch}, ${RUNS} runs + 1 warm-up per scenario\n`);

const rows = [];
for (const s of scenarios) {
  await s.run(); // warm-up
  const rates = [];
  const itemRates = [];
  let callsPerRun = 0;
  for (let i = 0; i < RUNS; i++) {
    const r = await s.run();
    callsPerRun = r.calls;
    rates.push(r.calls / r.seconds);
    itemRates.push(r.items / r.seconds);
  }
  rows.push([
    s.name,
    fmt(s.keys),
    fmt(callsPerRun),
    fmt(median(rates)),
    fmt(Math.min(...rates)),
    fmt(Math.max(...rates)),
    s.name === 'Add/Get/Done' ? fmt(median(itemRates)) : '-',
  ]);
}

const header = ['scenario', 'distinct keys', 'calls/run', 'median calls/s', 'min calls/s', 'max calls/s', 'median items/s'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (cells) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
process.stdout.write(`${line(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n`);
for (const r of rows) process.stdout.write(`${line(r)}\n`);
