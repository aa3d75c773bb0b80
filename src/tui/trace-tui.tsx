/**
 * Mounts the trace TUI; resolves when q or Ctrl+C is pressed or the signal aborts. When the trace
 * ends the screen stays, showing the outcome, until q — or, with `exitOnEnd`, closes a moment later.
 */
import type { CommandIO } from '../cli/io.js';
import { mountTui } from './mount.js';
import { TraceApp, type DiagnosisFeed, type TraceExit, type TraceSource } from './trace-app.js';
import type { MetricsFeed } from './use-queues-view.js';

/** How long the last frame stays after the end with `exitOnEnd`. */
const LINGER_MS = 1_000;

export async function runTraceTui(
  source: TraceSource,
  ended: Promise<unknown>,
  io: CommandIO,
  signal: AbortSignal,
  metrics?: MetricsFeed,
  options: { exitOnEnd?: boolean; diagnoses?: DiagnosisFeed } = {},
): Promise<'quit' | 'ended' | 'interrupt'> {
  let quit: TraceExit | undefined;
  const app = <TraceApp source={source} onQuit={(how) => (quit = how)} {...(metrics ? { metrics } : {})} diagnoses={options.diagnoses} />;
  const how = await mountTui(app, io, { signal, ...(options.exitOnEnd ? { endWhen: ended, lingerMs: LINGER_MS } : {}) });
  return how === 'interrupt' ? 'interrupt' : (quit ?? 'ended');
}
