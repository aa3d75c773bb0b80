/**
 * Entry points for bin/: wire signals and a closed stdout/stderr to an AbortSignal, run the program,
 * return the exit code.
 */
import { guardPipes } from './cli/broken-pipe.js';
import { processIO } from './cli/io.js';
import { runProgram, type ProgramFactory } from './cli/run.js';
import type { ExitCode } from './exit-codes.js';

async function runWithSignals(factory: ProgramFactory, argv: string[]): Promise<ExitCode> {
  const controller = new AbortController();
  const onSignal = (): void => controller.abort(new Error('interrupted'));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const pipes = guardPipes(processIO(controller.signal), (reason) => controller.abort(reason));
  try {
    return await pipes.finish(await runProgram(factory, argv, pipes.io));
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

// Each program is loaded only when it runs: startup time is mostly module loading.
export async function informerTrace(argv: string[]): Promise<ExitCode> {
  const { createInformerTraceProgram } = await import('./commands/informer-trace.js');
  return runWithSignals(createInformerTraceProgram, argv);
}

export async function leaseWatch(argv: string[]): Promise<ExitCode> {
  const { createLeaseWatchProgram } = await import('./commands/lease-watch.js');
  return runWithSignals(createLeaseWatchProgram, argv);
}
