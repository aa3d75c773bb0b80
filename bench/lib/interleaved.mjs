// Repetitions of several measured variants, side by side: each repetition runs every variant once,
// the order rotated by one each repetition, so drift in the machine's speed spreads over all.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fmtNum } from './stats.mjs';

/**
 * variants: [{ client, run(rep) }]. Resolves with the samples per client (a failed run is logged and
 * left out). summarise(result) gives the log line's figures; pauseMs: a pause before each run, for
 * what the previous one left the machine doing (a burst of processes) to settle.
 */
export async function interleaved(variants, reps, { what, log = () => {}, summarise = () => '', pauseMs = 0 }) {
  const samples = new Map(variants.map((v) => [v.client, []]));
  for (let r = 0; r < reps; r++) {
    for (let k = 0; k < variants.length; k++) {
      const v = variants[(k + r) % variants.length];
      if (pauseMs > 0) await sleep(pauseMs);
      const t0 = performance.now();
      try {
        const res = await v.run(r);
        samples.get(v.client).push(res);
        log(`${what} rep ${r + 1}/${reps} ${v.client}: ${summarise(res)} (${fmtNum((performance.now() - t0) / 1000, 1)} s)`);
      } catch (err) {
        log(`${what} rep ${r + 1}/${reps} ${v.client} FAILED: ${err.message}`);
      }
    }
  }
  return samples;
}
