// The two layouts of src/output/table.ts on a listing the size of `cache pods` over a large cache
// (not a timed test).
//
//   npm run build && node bench/table.mjs [--rows 10000] [--reps 5]
//
// Rows shaped like `cache pods -A`'s (namespace, name, ready, status, restarts, age, node), laid out
// by cli-table3 and by the one-pass layout, interleaved; prints one Markdown table on stdout (min
// and median ms per table) and the machine on stderr.
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { laidOut, onePass } from '../dist/output/table.js';
import { parseArgs } from './clients/common.mjs';
import { fmtNum, markdownTable, median } from './lib/stats.mjs';

const args = parseArgs(process.argv.slice(2));
const ROWS = Number(args.rows ?? 10_000);
const REPS = Number(args.reps ?? 5);
if (!Number.isInteger(ROWS) || ROWS < 1 || !Number.isInteger(REPS) || REPS < 1) {
  process.stderr.write('usage: node bench/table.mjs [--rows N] [--reps N]   (N >= 1)\n');
  process.exit(2);
}
const header = ['NAMESPACE', 'NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'NODE'];
const body = Array.from({ length: ROWS }, (_, i) => [
  `team-${i % 20}`,
  `web-${i.toString(36)}-7d9f8c6b5-x${i % 97}`,
  '1/1',
  'Running',
  String(i % 4),
  `${i % 59}m`,
  `kwok-node-${i % 50}`,
]);
const layouts = [
  ['cli-table3', laidOut],
  ['one pass', onePass],
];
const samples = new Map(layouts.map(([name]) => [name, []]));
let check;
for (let rep = 0; rep < REPS; rep++) {
  for (const [name, layout] of rep % 2 ? [...layouts].reverse() : layouts) {
    const start = performance.now();
    const text = layout(header, body);
    samples.get(name).push(performance.now() - start);
    if (check === undefined) check = text;
    else if (text !== check) throw new Error(`${name} laid the table out differently`);
  }
}
const rows = [...samples].map(([name, ms]) => [name, `${fmtNum(Math.min(...ms), 0)} ms`, `${fmtNum(median(ms), 0)} ms`]);
process.stdout.write(`${markdownTable(['layout', 'min', 'median'], rows)}\n`);
process.stderr.write(
  `${ROWS} rows, ${REPS} repetitions; ${cpus().length} × ${cpus()[0]?.model}, load ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}\n`,
);
