/**
 * Shared pieces of the e2e tests: the running local cluster, an admin client, namespaces that are
 * removed afterwards, polling, and running the plugins in-process.
 */
import { LocalCluster } from '../../src/cluster/launcher.js';
import type { ProgramFactory } from '../../src/cli/run.js';
import { runCli as runCliWith, type CliResult } from '../../src/testing/cli.js';
import { connect, type Kube } from '../../src/kube/index.js';

export function cluster(): LocalCluster {
  const c = LocalCluster.attach();
  if (!c) throw new Error('no local cluster is running: the e2e global setup should have started one');
  return c;
}

export function adminKube(): Kube {
  return connect({ kubeconfig: cluster().kubeconfigPath });
}

let counter = 0;
export function uniqueName(prefix: string): string {
  counter++;
  return `${prefix}-${Date.now().toString(36)}-${counter}`;
}

export async function createNamespace(kube: Kube, name: string): Promise<void> {
  await kube.client.json('/api/v1/namespaces', { method: 'POST', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } });
}

/** A namespace to run Pods in: created, and its default ServiceAccount there (Pod admission needs it). */
export async function createWorkloadNamespace(kube: Kube, name: string): Promise<void> {
  await createNamespace(kube, name);
  await eventually('default ServiceAccount', () => kube.client.json(`/api/v1/namespaces/${name}/serviceaccounts/default`).then(() => true));
}

/** Waits until a Deployment's status has caught up with its spec and all `replicas` are updated and available. */
export async function deploymentAvailable(kube: Kube, namespace: string, name: string, replicas: number): Promise<void> {
  await eventually(`${name} available with ${replicas} replicas`, async () => {
    const d = await kube.client.json<{ metadata: { generation?: number }; status?: { availableReplicas?: number; updatedReplicas?: number; replicas?: number; observedGeneration?: number } }>(
      `/apis/apps/v1/namespaces/${namespace}/deployments/${name}`,
    );
    return d.status?.observedGeneration === d.metadata.generation && d.status?.availableReplicas === replicas && d.status.updatedReplicas === replicas && d.status.replicas === replicas;
  }, 120_000);
}

export async function deleteNamespace(kube: Kube, name: string): Promise<void> {
  await kube.client.json(`/api/v1/namespaces/${name}`, { method: 'DELETE' }).catch(() => undefined);
}

export async function eventually<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 60_000, intervalMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export type { CliResult } from '../../src/testing/cli.js';

/** Runs a plugin's program in-process, as bin/ would, with captured output. */
export function runCli(factory: ProgramFactory, argv: string[], options: { env?: NodeJS.ProcessEnv; signal?: AbortSignal } = {}): Promise<CliResult> {
  return runCliWith(factory, argv, { ...process.env, CI: 'true', ...options.env }, options.signal);
}
