/**
 * The one table of process exit codes. Every command returns one of these; only bin/ exits.
 */
export const ExitCode = {
  /** Everything worked; a check found nothing wrong. */
  Ok: 0,
  /** A check ran and found a problem (an assertion failed, an object or lease is missing). */
  CheckFailed: 1,
  /** Bad flags, bad arguments, bad kubeconfig, unknown context or resource. */
  Usage: 2,
  /** The cluster could not be reached, or refused us (401 unauthorised, 403 forbidden). */
  Cluster: 3,
  /** Interrupted by SIGINT / SIGTERM. */
  Interrupted: 130,
  /**
   * stdout or stderr was closed by its reader (`| head`): what a shell reports for kubectl, which
   * SIGPIPE kills there (128 + 13).
   */
  BrokenPipe: 141,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
