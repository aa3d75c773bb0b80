/**
 * Starts the local control plane once for every e2e file (or reuses one that runs already, with
 * client-go's own leader election: see LocalCluster.ensureLeaderElection), and stops it at the end
 * only if this run started it.
 */
import { LocalCluster } from '../../tools/cluster/launcher.js';

let startedHere: LocalCluster | undefined;

export async function setup(): Promise<void> {
  const running = LocalCluster.attach();
  if (running && (await running.healthy())) {
    // One started with coordinated leader election is restarted without it.
    await running.ensureLeaderElection('classic');
    process.env.KUBECONFIG = running.kubeconfigPath;
    return;
  }
  const cluster = await LocalCluster.up();
  startedHere = cluster;
  process.env.KUBECONFIG = cluster.kubeconfigPath;
}

export async function teardown(): Promise<void> {
  if (startedHere && !process.env.KEEP_CLUSTER) await startedHere.down();
}
