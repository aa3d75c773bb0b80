/**
 * The readiness flags, the same on every command that judges objects (the trace, `diagnose`,
 * `check`, `probe`, `health`): `--ready EXPR` for the target, `--health-rules FILE` beside the
 * config folder's file. One engine is built from them per command (src/readiness).
 */
import type { Command } from 'commander';
import { loadReadiness, type Readiness } from '../readiness/index.js';

export interface ReadinessFlagValues {
  ready?: string | undefined;
  healthRules?: string | undefined;
}

export function addReadinessFlags(cmd: Command, options: { ready?: boolean } = {}): Command {
  if (options.ready !== false)
    cmd.option('--ready <expr>', 'the target is ready when this CEL expression over it is true (e.g. "status.phase == \'Running\'"); before every other rule');
  return cmd.option(
    '--health-rules <file>',
    "readiness rules per apiVersion and kind, as CEL in the shape of Flux's healthCheckExprs; read before the built-in library, with $XDG_CONFIG_HOME/informer-trace/health-rules.yaml after it when that exists",
  );
}

/**
 * The command's readiness engine: the flags' rules, `more` (a check config's `healthRules:`), the
 * config folder's file, the library.
 */
export function readinessFromFlags(opts: ReadinessFlagValues, env: NodeJS.ProcessEnv, more?: string): Promise<Readiness> {
  return loadReadiness({ ready: opts.ready, files: [opts.healthRules, more].filter((f) => f !== undefined), env });
}
