// Frame time of a view drawn synchronously in this process (a frame function called in a loop):
// bench/waterfall.mjs and bench/apply-set.mjs (the set TUI).
import { performance } from 'node:perf_hooks';
import { median, percentile } from './stats.mjs';

/** Runs `frame(i)` `warmup` + `frames` times; times the last `frames`, wall and CPU (milliseconds). */
export function timeFrames(frame, { warmup, frames }) {
  for (let i = 0; i < warmup; i++) frame(i);
  const times = [];
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  for (let i = 0; i < frames; i++) {
    const t0 = performance.now();
    frame(i);
    times.push(performance.now() - t0);
  }
  const wall = performance.now() - wall0;
  const cpu = process.cpuUsage(cpu0);
  return {
    median: median(times),
    p95: percentile(times, 95),
    max: Math.max(...times),
    cpuPerFrame: (cpu.user + cpu.system) / 1000 / frames,
    cpuShare: (cpu.user + cpu.system) / 1000 / wall,
  };
}
