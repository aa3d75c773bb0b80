/**
 * `kubectl informer-trace`: the root command and its subcommands. This file only registers; each
 * subcommand lives in its own file.
 */
import { Command } from 'commander';
import { addConnectionFlags } from '../cli/connection-flags.js';
import type { CommandIO } from '../cli/io.js';
import type { ExitCode } from '../exit-codes.js';
import { version } from '../version.js';
import { createCacheCommand } from './cache.js';
import { createHealthCommand } from './health.js';
import { createCheckCommand } from './check.js';
import { createDiagnoseCommand } from './diagnose.js';
import { createProbeCommand } from './probe.js';
import { createQueuesCommand } from './queues.js';
import { createTopCommand } from './top.js';
import { addTraceOptions, runTrace, type TraceOptions } from './trace.js';

export function createInformerTraceProgram(io: CommandIO, setExitCode: (code: ExitCode) => void): Command {
  const program = new Command('kubectl informer-trace')
    .description(
      'Run client-go style shared informers against the cluster, mirror their caches with custom indexes, and show what the informer machinery sees.',
    )
    .version(version, '--version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  kubectl informer-trace deploy/web -n demo --restart',
        '  kubectl informer-trace deploy/web -n demo --scale 5 -o ndjson',
        '  kubectl informer-trace sts/db --watch',
        '  kubectl informer-trace --apply -f web.yaml -n demo',
        '  kubectl informer-trace --watch -l app.kubernetes.io/instance=shop -n shop   # the next helm upgrade',
        '  kubectl informer-trace cache pods -n demo --index node=spec.nodeName',
        '  kubectl informer-trace cache deploy -A -o json --keys-only',
        '  kubectl informer-trace cache configmaps -l app=web --for 30s',
        '  kubectl informer-trace check --restart deploy/web -n demo --max-converge 60s --max-hop 20s --junit results.xml',
        '  kubectl informer-trace queues --metrics https://127.0.0.1:10257/metrics --metrics-insecure-skip-tls-verify',
        '  kubectl informer-trace top                                  # leader Leases and work queues, per controller',
        '  kubectl informer-trace diagnose deploy/web -n demo',
        '  kubectl informer-trace probe -n informer-trace-probe --interval 30s --otlp-endpoint http://jaeger-collector:4318',
      ].join('\n'),
    );
  program
    .argument('[target]', 'what to trace: TYPE/NAME (deployment/web, deploy/web, sts/db, ds/x, job/y, cronjob/z, a CRD)')
    .argument('[name]', 'NAME, when the target is given as TYPE NAME');
  addTraceOptions(program);
  addConnectionFlags(program);
  program.action(async (target: string | undefined, name: string | undefined, _opts: TraceOptions, command: Command) => {
    const opts = command.opts<TraceOptions & Record<string, unknown>>();
    // --apply -f names its target in the manifest; --watch -f and --watch -l watch the objects they give.
    if (!target && !opts.apply && (opts.filename ?? []).length === 0 && opts.selector === undefined) {
      command.outputHelp();
      return;
    }
    await runTrace(io, target, name, opts, setExitCode);
  });
  // Options after a subcommand's name are the subcommand's own (check has its own --timeout, --restart, -o).
  program.enablePositionalOptions();
  program.addCommand(createCacheCommand(io, setExitCode));
  program.addCommand(createCheckCommand(io, setExitCode, 'informer-trace'));
  program.addCommand(createQueuesCommand(io, setExitCode));
  program.addCommand(createTopCommand(io, setExitCode));
  program.addCommand(createDiagnoseCommand(io, setExitCode));
  program.addCommand(createHealthCommand(io, setExitCode));
  program.addCommand(createProbeCommand(io, setExitCode));
  return program;
}
