// Helpers shared by the measured Node processes (bench/clients/*.mjs). Each process prints JSON
// lines on stdout: {"ready":true} where the harness must wait for it, then one result line.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { nowMs } from '../lib/stats.mjs';

export function parseArgs(argv) {
  const out = { _: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) {
      out._.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    if (eq > 0) out[a.slice(2, eq)] = a.slice(eq + 1);
    else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) out[a.slice(2)] = argv[++i];
    else out[a.slice(2)] = 'true';
  }
  return out;
}

export function emit(obj) {
  process.stdout.write(`${JSON.stringify(obj)}\n`);
}

/** Peak resident set size of this process so far, in KiB (getrusage ru_maxrss). */
export const peakRssKB = () => process.resourceUsage().maxRSS;

/** Polls every millisecond until cond() holds; throws after timeoutMs. */
export async function until(cond, timeoutMs, what) {
  const deadline = performance.now() + timeoutMs;
  while (!cond()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(1);
  }
}

/**
 * The shared part of the `events` mode: records, per write sequence number, when the handler saw
 * it; resolves when every expected write was seen or nothing new arrived for idleMs.
 */
export function eventRecorder(expect, seqStart, idleMs) {
  const times = new Array(expect).fill(0);
  let seen = 0;
  let updates = 0;
  let last = performance.now();
  let resolveDone;
  const done = new Promise((r) => (resolveDone = r));
  const record = (obj) => {
    const t = nowMs();
    updates++;
    const s = Number(obj?.metadata?.annotations?.['bench/seq']);
    const i = s - seqStart;
    if (!Number.isInteger(i) || i < 0 || i >= expect || times[i] !== 0) return;
    times[i] = t;
    last = performance.now();
    if (++seen === expect) resolveDone();
  };
  const start = () => {
    last = performance.now();
    const timer = setInterval(() => {
      if (performance.now() - last > idleMs) resolveDone();
    }, 100);
    return done.then(() => clearInterval(timer));
  };
  const result = () => ({ times, seen, updates, peakRssKB: peakRssKB() });
  return { record, start, result };
}

/** Exits 0 once stdout has taken everything: a result line can be larger than a pipe's buffer. */
export function exitWhenFlushed() {
  process.stdout.write('', () => process.exit(0));
}

export function fail(err) {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
}
