/** Mounts the trace TUI; resolves when q is pressed, the signal aborts, or the trace ended. */
import type { CommandIO } from '../cli/io.js';
import { mountTui } from './mount.js';
import { TraceApp, type TraceSource } from './trace-app.js';
import type { MetricsFeed } from './use-queues-view.js';

export async function runTraceTui(source: TraceSource, ended: Promise<void>, io: CommandIO, signal: AbortSignal, metrics?: MetricsFeed): Promise<'quit' | 'ended' | 'interrupt'> {
  let quit = false;
  const app = <TraceApp source={source} onQuit={() => (quit = true)} {...(metrics ? { metrics } : {})} />;
  const how = await mountTui(app, io, { signal, endWhen: ended });
  return how === 'interrupt' ? 'interrupt' : quit ? 'quit' : 'ended';
}
