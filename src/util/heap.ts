/**
 * How V8 sizes the heap of a process that follows many objects at once.
 *
 * A set's traces (hundreds of them) each make a new snapshot of their chain on every change, and
 * the old ones die once replaced: most of what the heap holds at any time is garbage waiting for
 * a full collection. By default V8 lets the old generation grow to a few times what is live
 * before it collects; with its `--optimize-for-size` policy it grows less and collects sooner. On
 * the 400-object release of the benchmark (BENCHMARKS.md, section 13) the peak RSS went from
 * ~210 to ~150 MiB with the time to "all ready" unchanged.
 *
 * Set once, at run time (Node's v8.setFlagsFromString), for the rest of the process: only the
 * commands that run many traces ask for it, so a single trace keeps V8's default speed.
 */
import { setFlagsFromString } from 'node:v8';

let favoured = false;

/** From now on, V8 keeps the heap small rather than collecting less often. Idempotent. */
export function favourSmallHeap(): void {
  if (favoured) return;
  favoured = true;
  setFlagsFromString('--optimize-for-size');
}
