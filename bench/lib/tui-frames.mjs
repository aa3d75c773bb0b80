// The trace TUI's frame time, measured while it traces a real rollout (bench/tracer-scale.mjs).
//
// Runs the plugin's program in this process, as bin/ would, with a terminal of its own: stdout is
// a stream that says it is a TTY of COLUMNS x ROWS, so the command picks its TUI and ink draws
// full-screen frames into it (they are counted, not shown). Nothing in the plugin is changed for
// the measurement; two things around it are observed:
// - every timer and immediate callback (the TUI's redraw throttle and ink's are timers; React's
//   scheduler renders in an immediate), and
// - every read of the trace's snapshot outside a timer (the throttle's leading edge, which runs in
//   the task that received a watch event), up to the end of that task's synchronous part.
// A frame is such a stretch of work in which ink wrote to the terminal (React's render and commit,
// ink's layout and output), plus the stretches since the last frame that read the view from the
// tracer. Its time is how long the process was busy drawing it, i.e. how long a key press or the
// next watch event waited behind it: wall time, so it includes any wait for a core. Each frame's
// main-thread CPU time is kept beside it (`cpuFrames`), where Node can tell.
// Frames end with the alternate screen: what is printed after it (the final summary) is not one.
import './production-env.mjs';
import { performance } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { runProgram } from '../../dist/cli/run.js';
import { createInformerTraceProgram } from '../../dist/commands/informer-trace.js';
import { TraceSession } from '../../dist/trace/index.js';

const LEAVE_ALTERNATE_SCREEN = '\u001b[?1049l';

/**
 * The run being measured. A callback is timed for whichever run is measuring when it is called, not
 * the one that wrapped it: a module can keep the wrapped setImmediate it found when it was loaded
 * (React's scheduler does), so a second run in the same process must still see its work.
 */
let measuring;

function timed(fn) {
  return function (...a) {
    const run = measuring;
    const mine = run ? run.begin() : false;
    try {
      return fn.apply(this, a);
    } finally {
      if (mine) run.end();
    }
  };
}

/** Runs `kubectl informer-trace ARGV` on a COLUMNS x ROWS terminal; resolves with its frame times (wall and CPU). */
export async function traceInTerminal(argv, { columns, rows }) {
  const frames = [];
  // The main thread's CPU time in each frame, where Node can tell (process.threadCpuUsage, Node
  // 23.9+): a frame's wall time less this is time the thread waited for a core or was paused.
  const cpuFrames = [];
  const threadCpu =
    typeof process.threadCpuUsage === 'function'
      ? () => {
          const u = process.threadCpuUsage();
          return (u.user + u.system) / 1000;
        }
      : undefined;
  let span; // { start, cpu, wrote }
  let onScreen = true;
  let bytes = 0;
  let writes = 0;
  let outside = 0;
  const begin = () => {
    if (span) return false;
    span = { start: performance.now(), cpu: threadCpu?.() ?? 0, wrote: false };
    return true;
  };
  // Reading the snapshot and React's render are separate tasks (React's scheduler renders in an
  // immediate): a stretch that read the snapshot without writing adds to the frame that follows.
  let carried = 0;
  let carriedCpu = 0;
  const end = () => {
    const s = span;
    span = undefined;
    if (!s) return;
    const cpu = threadCpu ? threadCpu() - s.cpu : 0;
    if (s.wrote) {
      frames.push(performance.now() - s.start + carried);
      if (threadCpu) cpuFrames.push(cpu + carriedCpu);
      carried = 0;
      carriedCpu = 0;
    } else if (s.readSnapshot) {
      carried += performance.now() - s.start;
      carriedCpu += cpu;
    }
  };

  const terminal = new Writable({
    write(chunk, _encoding, done) {
      const text = chunk.toString();
      if (onScreen) {
        bytes += chunk.length;
        writes++;
        if (span) span.wrote = true;
        else outside++;
        if (text.includes(LEAVE_ALTERNATE_SCREEN)) onScreen = false;
      }
      done();
    },
  });
  Object.assign(terminal, { isTTY: true, columns, rows });
  let stderr = '';
  const errors = new Writable({
    write(chunk, _encoding, done) {
      stderr += chunk.toString();
      done();
    },
  });

  if (measuring) throw new Error('traceInTerminal: one run at a time');
  measuring = { begin, end, span: () => span };
  const realSetTimeout = globalThis.setTimeout;
  const realSetImmediate = globalThis.setImmediate;
  const realSnapshot = TraceSession.prototype.snapshot;
  globalThis.setTimeout = (fn, ...rest) => realSetTimeout(typeof fn === 'function' ? timed(fn) : fn, ...rest);
  globalThis.setImmediate = (fn, ...rest) => realSetImmediate(timed(fn), ...rest);
  TraceSession.prototype.snapshot = function () {
    const run = measuring;
    if (run) {
      if (run.begin()) queueMicrotask(run.end);
      run.span().readSnapshot = true;
    }
    return realSnapshot.call(this);
  };
  const controller = new AbortController();
  const started = performance.now();
  try {
    const env = { ...process.env, TERM: 'xterm-256color' };
    delete env.CI;
    const code = await runProgram(createInformerTraceProgram, argv, { stdout: terminal, stderr: errors, env, signal: controller.signal });
    return { code, stderr, frames, cpuFrames, bytes, writes, outside, wallS: (performance.now() - started) / 1000 };
  } finally {
    globalThis.setTimeout = realSetTimeout;
    globalThis.setImmediate = realSetImmediate;
    TraceSession.prototype.snapshot = realSnapshot;
    measuring = undefined;
  }
}
