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
        '  kubectl informer-trace cache pods -n demo --index node=spec.nodeName',
        '  kubectl informer-trace cache deploy -A -o json --keys-only',
        '  kubectl informer-trace cache configmaps -l app=web --for 30s',
      ].join('\n'),
    );
  addConnectionFlags(program);
  program.addCommand(createCacheCommand(io, setExitCode));
  return program;
}
