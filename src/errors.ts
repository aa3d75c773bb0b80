import { ExitCode } from './exit-codes.js';
import { escapeTerminal } from './util/escape.js';

export interface CliErrorOptions {
  /** One line on what the user can do about it. */
  hint?: string;
  cause?: unknown;
}

/**
 * The one error family the commands throw for anything a user should read. runProgram
 * (src/cli/run.ts) prints the message and the hint on stderr (the stack only with -v) and returns
 * `exitCode`, which bin/ exits with.
 */
export class CliError extends Error {
  readonly exitCode: ExitCode;
  readonly hint: string | undefined;

  constructor(message: string, exitCode: ExitCode, options: CliErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CliError';
    this.exitCode = exitCode;
    this.hint = options.hint;
  }
}

/** Bad flags, arguments, kubeconfig, context, resource names. Exit 2. */
export class UsageError extends CliError {
  constructor(message: string, options: CliErrorOptions = {}) {
    super(message, ExitCode.Usage, options);
    this.name = 'UsageError';
  }
}

/** The cluster is unreachable, or refused the credentials or the request. Exit 3. */
export class ClusterError extends CliError {
  constructor(message: string, options: CliErrorOptions = {}) {
    super(message, ExitCode.Cluster, options);
    this.name = 'ClusterError';
  }
}

/** A check ran and failed, or what was asked for does not exist. Exit 1. */
export class CheckFailedError extends CliError {
  constructor(message: string, options: CliErrorOptions = {}) {
    super(message, ExitCode.CheckFailed, options);
    this.name = 'CheckFailedError';
  }
}

/** Renders any thrown value as the lines runProgram prints on stderr. */
export function formatError(err: unknown, verbose: boolean): string {
  const lines: string[] = [];
  // An API server's message (an admission webhook's denial, say) is the cluster's text: escaped.
  if (err instanceof CliError) {
    lines.push(`error: ${escapeTerminal(err.message)}`);
    if (err.hint) lines.push(`hint: ${escapeTerminal(err.hint)}`);
  } else if (err instanceof Error) {
    lines.push(`error: ${escapeTerminal(err.message)}`);
  } else {
    lines.push(`error: ${escapeTerminal(String(err))}`);
  }
  if (verbose && err instanceof Error && err.stack) {
    lines.push(err.stack);
    let cause = err.cause;
    while (cause instanceof Error) {
      lines.push(`caused by: ${cause.stack ?? cause.message}`);
      cause = cause.cause;
    }
  }
  return lines.join('\n');
}

export function exitCodeOf(err: unknown): ExitCode {
  return err instanceof CliError ? err.exitCode : ExitCode.CheckFailed;
}
