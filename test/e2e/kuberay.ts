/**
 * KubeRay's operator as the e2e tests run it: built from its published Go module (the version
 * test/fixtures/kuberay/go.mod pins), its three CRDs installed from the same module, and replicas
 * started against the local control plane, watching one namespace and electing a leader there.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { Kube } from '../../src/kube/index.js';
import { repoRoot } from '../../tools/root.js';
import { cluster, createWorkloadNamespace, eventually } from './helpers.js';
import { applyCrd, buildFixture, startOperators, type Operators } from './operators.js';

export const KUBERAY_LEASE = 'ray-operator-leader';

/** Builds the operator (once), installs its CRDs, makes `ns` and starts `replicas` replicas; resolves once one leads. */
export async function startKubeRay(kube: Kube, ns: string, replicas: number): Promise<{ ops: Operators; crds: string[] }> {
  const binary = await buildFixture(join(repoRoot, 'test', 'fixtures', 'kuberay', 'build.sh'), "KubeRay's operator");
  const crds: string[] = [];
  // It watches RayClusters, RayJobs and RayServices, and exits when one of the CRDs is missing.
  for (const file of ['ray.io_rayclusters.yaml', 'ray.io_rayjobs.yaml', 'ray.io_rayservices.yaml']) {
    const docs = parseAllDocuments(readFileSync(join(dirname(binary), file), 'utf8'))
      .map((d) => d.toJSON() as Parameters<typeof applyCrd>[1])
      .filter(Boolean);
    for (const crd of docs) crds.push(await applyCrd(kube, crd));
  }
  await createWorkloadNamespace(kube, ns);
  const ops = await startOperators({
    name: 'kuberay',
    binary,
    replicas,
    lease: { namespace: ns, name: KUBERAY_LEASE },
    args: (_i, port) => [
      '--kubeconfig',
      cluster().kubeconfigPath,
      '--leader-election-namespace',
      ns,
      '--watch-namespace',
      ns,
      '--metrics-addr',
      `127.0.0.1:${port}`,
      '--health-probe-bind-address',
      '0',
    ],
  });
  await eventually('a KubeRay replica to lead', () => ops.holder(kube), 60_000);
  return { ops, crds };
}
