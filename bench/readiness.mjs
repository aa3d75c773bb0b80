// The readiness engine measured (docs/readiness.md, "Measured"; BENCHMARKS.md, "Readiness"):
//
//   npm run build && node bench/readiness.mjs [--objects 10000] [--reps 5]
//
// 1. Agreement: every object of the readiness corpus (tools/readiness/corpus.ts: the library's
//    examples and the objects captured from real runs), judged by our engine and by kstatus
//    (sigs.k8s.io/cli-utils v0.37.2's status.Compute, the Go fixture test/fixtures/kstatus, built
//    on first use), against the status each object is expected to have. Prints the table and every
//    object on which the two differ.
// 2. Speed: `kubectl informer-trace health -f FILE -o json` over N objects of mixed kinds (the
//    corpus's objects, renamed, round after round) as a whole process, and the engine's judging
//    alone in this process (rules compiled once, on first use).
// Nothing here talks to a cluster.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { stringify } from 'yaml';
import { agreement, kstatusOf, readinessCorpus } from '../build/tools/readiness/index.js';
import { createReadiness } from '../dist/readiness/engine.js';
import { fmtNum, markdownTable, median } from './lib/stats.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const N = arg('--objects', 10_000);
const REPS = arg('--reps', 5);

const { library, captured } = readinessCorpus();
const all = [...library, ...captured];
const engine = createReadiness();
const ours = all.map((e) => engine.judge(e.object).status);
const theirs = (await kstatusOf(all.map((e) => e.object))).map((r) => r.status);

const pct = (n, d) => (d === 0 ? '-' : `${((100 * n) / d).toFixed(1)}%`);
const rowsFor = (label, entries, judged) => {
  const a = agreement(entries, judged);
  return [
    label,
    a.objects,
    pct(a.currentAgree, a.objects),
    pct(a.failedAgree, a.objects),
    a.failedCalledCurrent,
    `${a.pendingCalledCurrent} of ${a.pending}`,
    a.currentMissed,
  ];
};
const head = [
  'judge, objects',
  'n',
  'Current-or-not agrees',
  'Failed-or-not agrees',
  'failing called Current',
  'in progress / suspended called Current',
  'Current missed',
];
const lib = (xs) => xs.slice(0, library.length);
const cap = (xs) => xs.slice(library.length);
console.log(
  `## Agreement with the expected statuses (${all.length} objects, ${new Set(all.map((e) => `${e.object.apiVersion?.split('/')[0]}/${e.object.kind}`)).size} kinds)\n`,
);
console.log(
  markdownTable(head, [
    rowsFor('ours, all', all, ours),
    rowsFor('kstatus, all', all, theirs),
    rowsFor('ours, captured', captured, cap(ours)),
    rowsFor('kstatus, captured', captured, cap(theirs)),
    rowsFor('ours, library examples', library, lib(ours)),
    rowsFor('kstatus, library examples', library, lib(theirs)),
  ]),
);
console.log('\n## Where the two differ on Current-or-not\n');
const differ = all.map((e, i) => ({ e, ours: ours[i], theirs: theirs[i] })).filter((d) => (d.ours === 'Current') !== (d.theirs === 'Current'));
console.log(
  markdownTable(
    ['object', 'expected', 'ours', 'kstatus', 'why it is what it is'],
    differ.map((d) => [`${d.e.origin}: ${d.e.object.kind}/${d.e.object.metadata?.name ?? ''}`, d.e.expected, d.ours, d.theirs, d.e.why.replace(/\|/g, '\\|')]),
  ),
);

// Speed: N objects of mixed kinds, each a corpus object under a name of its own.
const objects = [];
for (let i = 0; objects.length < N; i++) {
  const src = all[i % all.length].object;
  objects.push({ ...src, metadata: { ...src.metadata, name: `${src.metadata?.name ?? 'obj'}-${i}` } });
}
const dir = mkdtempSync(join(tmpdir(), 'readiness-bench-'));
const file = join(dir, 'objects.yaml');
writeFileSync(file, objects.map((o) => stringify(o)).join('---\n'));
const wall = [];
for (let r = 0; r < REPS; r++) {
  const t0 = performance.now();
  try {
    execFileSync(process.execPath, ['bin/kubectl-informer_trace', 'health', '-f', file, '-o', 'json'], { stdio: ['ignore', 'ignore', 'ignore'] });
  } catch (err) {
    // Exit 1: not every object is Current, as expected of the corpus.
    if (err.status !== 1) throw err;
  }
  wall.push(performance.now() - t0);
}
const fresh = createReadiness();
const t0 = performance.now();
for (const o of objects) fresh.judge(o);
const first = performance.now() - t0;
const again = [];
for (let r = 0; r < REPS; r++) {
  const t1 = performance.now();
  for (const o of objects) fresh.judge(o);
  again.push(performance.now() - t1);
}
rmSync(dir, { recursive: true, force: true });
console.log(
  `\n## Speed over ${N} objects of ${new Set(objects.map((o) => o.kind)).size} kinds (${REPS} runs, medians; ${cpus()[0]?.model ?? '?'}, ${cpus().length} cores, Node ${process.version})\n`,
);
console.log(
  markdownTable(
    ['what', 'ms'],
    [
      [`\`health -f\` (${N} objects, YAML) as a whole process: read, parse, judge, print JSON`, fmtNum(median(wall), 0)],
      ['judging alone, first pass (each rule compiled on first use)', fmtNum(first, 0)],
      ['judging alone, later passes', fmtNum(median(again), 0)],
    ],
  ),
);
