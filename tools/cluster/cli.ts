/**
 * `npm run cluster:up | cluster:down | cluster:status`: the local control plane from the command line.
 * Progress goes to stderr; `up` prints the kubeconfig path on stdout. `up --leader-election
 * coordinated` starts it with coordinated leader election (in a folder of its own, say, with
 * INFORMER_TRACE_CLUSTER_DIR); a running cluster with the other kind is restarted with it.
 */
import { LocalCluster, defaultClusterDir, type LeaderElectionMode } from './launcher.js';

function leaderElectionArg(args: string[]): LeaderElectionMode {
  const i = args.findIndex((a) => a === '--leader-election' || a.startsWith('--leader-election='));
  if (i < 0) return 'classic';
  const value = args[i]!.includes('=') ? args[i]!.slice(args[i]!.indexOf('=') + 1) : args[i + 1];
  if (value !== 'classic' && value !== 'coordinated') throw new Error(`--leader-election: classic or coordinated (got "${value ?? ''}")`);
  return value;
}

async function main(argv: string[]): Promise<number> {
  const cmd = argv[0] ?? 'status';
  switch (cmd) {
    case 'up': {
      const cluster = await LocalCluster.up({ leaderElection: leaderElectionArg(argv.slice(1)) });
      process.stdout.write(`${cluster.kubeconfigPath}\n`);
      process.stderr.write(`export KUBECONFIG=${cluster.kubeconfigPath}\n`);
      return 0;
    }
    case 'down': {
      const cluster = LocalCluster.attach();
      if (!cluster) {
        process.stderr.write(`local cluster: none running (${defaultClusterDir()})\n`);
        return 0;
      }
      await cluster.down();
      process.stderr.write('local cluster: stopped, data removed\n');
      return 0;
    }
    case 'status': {
      const cluster = LocalCluster.attach();
      if (!cluster) {
        process.stderr.write(`local cluster: none (${defaultClusterDir()})\n`);
        return 1;
      }
      const healthy = await cluster.healthy();
      process.stdout.write(`${JSON.stringify({ healthy, ...cluster.describe() }, null, 2)}\n`);
      return healthy ? 0 : 1;
    }
    default:
      process.stderr.write(`usage: cluster up [--leader-election classic|coordinated]|down|status (got "${cmd}")\n`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
