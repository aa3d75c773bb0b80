/**
 * `kubectl lease-watch`: leader-election Leases, their holders, renewals and failovers.
 */
import { Command } from 'commander';
import { addConnectionFlags } from '../cli/connection-flags.js';
import type { CommandIO } from '../cli/io.js';
import type { ExitCode } from '../exit-codes.js';
import { version } from '../version.js';

export function createLeaseWatchProgram(_io: CommandIO, _setExitCode: (code: ExitCode) => void): Command {
  const program = new Command('kubectl lease-watch')
    .description('Watch coordination.k8s.io Leases: leader ownership, renewals, transitions and failovers.')
    .version(version, '--version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .option('-A, --all-namespaces', 'watch Leases in every namespace (the default without -n)');
  addConnectionFlags(program);
  return program;
}
