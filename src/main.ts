/**
 * Entry points for bin/: wire signals to an AbortSignal, run the program, return the exit code.
 */
import { processIO } from './cli/io.js';
import { runProgram, type ProgramFactory } from './cli/run.js';
import { createInformerTraceProgram } from './commands/informer-trace.js';
import { createLeaseWatchProgram } from './commands/lease-watch.js';
import type { ExitCode } from './exit-codes.js';

async function runWithSignals(factory: ProgramFactory, argv: string[]): Promise<ExitCode> {
  const controller = new AbortController();
  const onSignal = (): void => controller.abort(new Error('interrupted'));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await runProgram(factory, argv, processIO(controller.signal));
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

export function informerTrace(argv: string[]): Promise<ExitCode> {
  return runWithSignals(createInformerTraceProgram, argv);
}

export function leaseWatch(argv: string[]): Promise<ExitCode> {
  return runWithSignals(createLeaseWatchProgram, argv);
}
