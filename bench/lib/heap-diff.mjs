// Two V8 heap snapshots (.heapsnapshot, as --heapsnapshot-signal writes them) side by side: the
// heap's nodes grouped by kind and name (an object's name is its constructor's; strings, code and
// arrays are grouped by kind alone), with the count and self size of each group in both, and the
// groups that grew most. With --content, strings are grouped by their text (its first 48
// characters, each run of digits as #) and code by its name: what the strings that grew say. A
// benchmark's tool, not a test.
//
//   node bench/lib/heap-diff.mjs EARLIER.heapsnapshot LATER.heapsnapshot [--top N] [--json] [--content]
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const STRINGS = new Set(['string', 'concatenated string', 'sliced string']);

/** Count and self size per group of one snapshot, and its totals; `content` groups strings by text and code by name. */
export function summarize(file, { content = false } = {}) {
  const snap = JSON.parse(readFileSync(file, 'utf8'));
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const width = fields.length;
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const { nodes, strings } = snap;
  const groups = new Map();
  let total = 0;
  for (let i = 0; i < nodes.length; i += width) {
    const type = types[nodes[i + typeAt]];
    const size = nodes[i + sizeAt];
    total += size;
    const named = type === 'object' || type === 'closure' || type === 'native' || type === 'hidden' || type === 'array';
    const key = named
      ? `${type}:${strings[nodes[i + nameAt]]}`
      : content && STRINGS.has(type)
        ? `${type}:${strings[nodes[i + nameAt]]
            .slice(0, 48)
            .replace(/[0-9]+/g, '#')
            .replace(/\s+/g, ' ')}`
        : content && type === 'code'
          ? `code:${strings[nodes[i + nameAt]].slice(0, 64)}`
          : type;
    const g = groups.get(key);
    if (g) {
      g.count++;
      g.size += size;
    } else groups.set(key, { count: 1, size });
  }
  return { file, nodes: nodes.length / width, totalBytes: total, groups };
}

/** The groups ordered by how much they grew from `a` to `b` (bytes), with both sides. */
export function diff(a, b, top = 20) {
  const keys = new Set([...a.groups.keys(), ...b.groups.keys()]);
  const rows = [...keys].map((key) => {
    const x = a.groups.get(key) ?? { count: 0, size: 0 };
    const y = b.groups.get(key) ?? { count: 0, size: 0 };
    return { group: key, count: [x.count, y.count], bytes: [x.size, y.size], grewBytes: y.size - x.size };
  });
  rows.sort((p, q) => q.grewBytes - p.grewBytes);
  return {
    totalBytes: [a.totalBytes, b.totalBytes],
    nodes: [a.nodes, b.nodes],
    grew: rows.slice(0, top),
    shrank: rows.slice(-5).reverse(),
  };
}

/** Counts of the named constructors in one summary (e.g. the informers and stores alive). */
export function instances(summary, names) {
  return Object.fromEntries(names.map((n) => [n, summary.groups.get(`object:${n}`)?.count ?? 0]));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [first, second, ...rest] = process.argv.slice(2);
  if (!first || !second) {
    process.stderr.write('usage: node bench/lib/heap-diff.mjs EARLIER.heapsnapshot LATER.heapsnapshot [--top N] [--json] [--content]\n');
    process.exit(2);
  }
  const topAt = rest.indexOf('--top');
  const top = topAt >= 0 ? Number(rest[topAt + 1]) : 20;
  const content = rest.includes('--content');
  const d = diff(summarize(first, { content }), summarize(second, { content }), top);
  if (rest.includes('--json')) process.stdout.write(`${JSON.stringify(d, null, 2)}\n`);
  else {
    const kb = (n) => `${(n / 1024).toFixed(0)} KiB`;
    process.stdout.write(`heap ${kb(d.totalBytes[0])} -> ${kb(d.totalBytes[1])}, nodes ${d.nodes[0]} -> ${d.nodes[1]}\n`);
    for (const r of d.grew) process.stdout.write(`${r.grewBytes >= 0 ? '+' : ''}${kb(r.grewBytes)}\t${r.count[0]} -> ${r.count[1]}\t${r.group}\n`);
  }
}
