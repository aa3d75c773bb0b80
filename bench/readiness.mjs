// The readiness engine measured (docs/readiness.md, "Measured"; BENCHMARKS.md, "Readiness"):
//
//   npm run build && node bench/readiness.mjs [--objects 10000] [--reps 5] [--corpus-md FILE]
//
// --corpus-md FILE writes part 1 as a page (docs/readiness-corpus.md is one).
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
import { compileCel } from '../dist/readiness/cel-compile.js';
import { createReadiness } from '../dist/readiness/engine.js';
import { fmtNum, markdownTable, median } from './lib/stats.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const N = arg('--objects', 10_000);
const corpusMd = process.argv.includes('--corpus-md') ? process.argv[process.argv.indexOf('--corpus-md') + 1] : undefined;
const out = [];
const say = (text) => {
  out.push(text);
  console.log(text);
};
const REPS = arg('--reps', 5);

const { library, captured } = readinessCorpus();
const all = [...library, ...captured];
const engine = createReadiness({}, compileCel);
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
say(
  `## Agreement with the expected statuses (${all.length} objects, ${new Set(all.map((e) => `${e.object.apiVersion?.split('/')[0]}/${e.object.kind}`)).size} kinds)\n`,
);
say(
  markdownTable(head, [
    rowsFor('ours, all', all, ours),
    rowsFor('kstatus, all', all, theirs),
    rowsFor('ours, captured', captured, cap(ours)),
    rowsFor('kstatus, captured', captured, cap(theirs)),
    rowsFor('ours, library examples', library, lib(ours)),
    rowsFor('kstatus, library examples', library, lib(theirs)),
  ]),
);
say('\n## Where the two differ on Current-or-not\n');
const differ = all.map((e, i) => ({ e, ours: ours[i], theirs: theirs[i] })).filter((d) => (d.ours === 'Current') !== (d.theirs === 'Current'));
say(
  markdownTable(
    ['object', 'expected', 'ours', 'kstatus', 'why it is what it is'],
    differ.map((d) => [`${d.e.origin}: ${d.e.object.kind}/${d.e.object.metadata?.name ?? ''}`, d.e.expected, d.ours, d.theirs, d.e.why.replace(/\|/g, '\\|')]),
  ),
);

if (corpusMd) {
  const intro = [
    '# The readiness corpus: our engine and kstatus, object by object',
    '',
    'Written by `node bench/readiness.mjs --corpus-md docs/readiness-corpus.md` (docs/readiness.md, "Measured", says what',
    'the corpus is). Every object of the corpus, judged by our engine and by kstatus (sigs.k8s.io/cli-utils v0.37.2,',
    '`status.Compute`), against the status each is expected to have; then each object on which the two differ on',
    'Current-or-not, with why it is what it is. kstatus `Error`: it could not judge the object (an `observedGeneration`',
    'written as a string).',
    '',
  ];
  writeFileSync(corpusMd, `${[...intro, ...out].join('\n')}\n`);
}

// Speed: N objects of mixed kinds, each a corpus object under a name of its own.
const objects = [];
for (let i = 0; objects.length < N; i++) {
  const src = all[i % all.length].object;
  objects.push({ ...src, metadata: { ...src.metadata, name: `${src.metadata?.name ?? 'obj'}-${i}` } });
}
const dir = mkdtempSync(join(tmpdir(), 'readiness-bench-'));
const yamlFile = join(dir, 'objects.yaml');
writeFileSync(yamlFile, objects.map((o) => stringify(o)).join('---\n'));
const jsonFile = join(dir, 'objects.json');
writeFileSync(jsonFile, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }));
/** Wall time of `health -f FILE -o json` as a whole process, each run. */
const healthRuns = (file) => {
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
  return wall;
};
const wallJson = healthRuns(jsonFile);
const wallYaml = healthRuns(yamlFile);
const fresh = createReadiness({}, compileCel);
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
      [`\`health -f\` over a JSON List (\`kubectl get -o json\`) as a whole process: start, read, parse, judge, print JSON`, fmtNum(median(wallJson), 0)],
      [`\`health -f\` over multi-document YAML (\`helm template\`), the same`, fmtNum(median(wallYaml), 0)],
      ['judging alone, first pass (each rule compiled on first use)', fmtNum(first, 0)],
      ['judging alone, later passes', fmtNum(median(again), 0)],
    ],
  ),
);
