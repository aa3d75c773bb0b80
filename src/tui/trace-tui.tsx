/** Mounts the trace TUI; resolves when q is pressed, the signal aborts, or the trace ended and `lingerMs` passed. */
import { render } from 'ink';
import type { CommandIO } from '../cli/io.js';
import { TraceApp, type TraceSource } from './trace-app.js';
import type { MetricsFeed } from './use-queues-view.js';

export async function runTraceTui(source: TraceSource, ended: Promise<void>, io: CommandIO, signal: AbortSignal, metrics?: MetricsFeed): Promise<'quit' | 'ended' | 'interrupt'> {
  let reason: 'quit' | 'ended' | 'interrupt' = 'ended';
  const instance = render(<TraceApp source={source} onQuit={() => (reason = 'quit')} {...(metrics ? { metrics } : {})} />, {
    stdout: io.stdout,
    stderr: io.stderr,
    ...(io.stdin ? { stdin: io.stdin } : {}),
    exitOnCtrlC: false,
    patchConsole: false,
    maxFps: 10,
  });
  const onAbort = (): void => {
    reason = 'interrupt';
    instance.unmount();
  };
  signal.addEventListener('abort', onAbort, { once: true });
  void ended.then(() => setTimeout(() => instance.unmount(), 300));
  try {
    await instance.waitUntilExit();
  } finally {
    signal.removeEventListener('abort', onAbort);
    instance.cleanup();
  }
  return reason;
}
