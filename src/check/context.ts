/** What every check runner gets from the command: when to stop, where progress goes, how long to wait for a sync. */
export interface RunContext {
  /** Aborts on SIGINT / SIGTERM. */
  signal: AbortSignal;
  /** A progress line for stderr; the caller prefixes the check's name. */
  log: (line: string) => void;
  syncTimeoutMs: number;
}
