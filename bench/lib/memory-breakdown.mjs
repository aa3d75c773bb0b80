// Where a process's resident memory is when it exits (Linux): preloaded into any of the
// benchmark's Node programs, it prints one line to stderr at exit.
//
//   node --max-semi-space-size=2 --import ./bench/lib/memory-breakdown.mjs bench/clients/ours.mjs sync --kubeconfig=KC --namespace=NS
//
// The line gives the peak RSS (VmHWM) and, at exit, the resident memory of the node executable's
// own pages (code and read-only data read from the file, which a bare `node` already holds tens
// of MiB of), of other files, of the malloc heap ([heap]: what Node, OpenSSL and the received
// Buffers allocate on the main thread), and of the other anonymous mappings (V8's heap pages,
// other threads' malloc arenas, stacks), with V8's heap spaces as V8 counts them. File-backed
// pages are seldom given back, so at exit they are close to their peak; the anonymous ones may
// have shrunk since the peak.
import { readFileSync } from 'node:fs';
import v8 from 'node:v8';
import { residentParts } from './resident-parts.mjs';

const MiB = (kb) => (kb / 1024).toFixed(1);

function breakdown() {
  const status = readFileSync('/proc/self/status', 'utf8');
  const kb = (field) => Number(status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'))?.[1] ?? 0);
  const groups = residentParts();
  const spaces = v8
    .getHeapSpaceStatistics()
    .filter((s) => s.space_size >= 2 ** 20)
    .map((s) => `${s.space_name} ${MiB(s.space_size / 1024)}`)
    .join(', ');
  const parts = Object.entries(groups)
    .map(([k, v]) => `${k} ${MiB(v)}`)
    .join(', ');
  return `memory: peak RSS ${MiB(kb('VmHWM'))} MiB; at exit RSS ${MiB(kb('VmRSS'))} MiB: ${parts}; V8 heap spaces: ${spaces}`;
}

process.on('exit', () => {
  try {
    process.stderr.write(`${breakdown()}\n`);
  } catch (err) {
    process.stderr.write(`memory: not available here (${err.message})\n`);
  }
});
