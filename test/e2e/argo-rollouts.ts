/**
 * Argo Rollouts' controller as the e2e tests run it: built from its published Go module (the version
 * test/fixtures/argo-rollouts/go.mod pins; plain client-go, not controller-runtime), its CRDs
 * installed from the same module, and replicas started against the local control plane in
 * namespaced mode, electing a leader through a Lease in that namespace.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { Kube } from '../../src/kube/index.js';
import { freePorts } from '../../tools/cluster/ports.js';
import { repoRoot } from '../../tools/root.js';
import { cluster, createWorkloadNamespace, eventually } from './helpers.js';
import { applyCrd, buildFixture, startOperators, type Operators } from './operators.js';

/** The Lease its replicas elect their leader through (in the namespace they run in). */
export const ROLLOUTS_LEASE = 'argo-rollouts-controller-lock';

const CRD_FILES = ['rollout-crd.yaml', 'analysis-run-crd.yaml', 'analysis-template-crd.yaml', 'cluster-analysis-template-crd.yaml', 'experiment-crd.yaml'];

/** Builds the controller (once), installs its CRDs (the module's own files: crdFiles), makes `ns` and starts `replicas` replicas; resolves once one leads. */
export async function startArgoRollouts(kube: Kube, ns: string, replicas: number): Promise<{ ops: Operators; crds: string[]; crdFiles: string[] }> {
  const binary = await buildFixture(join(repoRoot, 'test', 'fixtures', 'argo-rollouts', 'build.sh'), "Argo Rollouts' controller");
  const crds: string[] = [];
  // It starts informers for all five kinds and waits for their caches to sync.
  for (const file of CRD_FILES) {
    const docs = parseAllDocuments(readFileSync(join(dirname(binary), file), 'utf8'))
      .map((d) => d.toJSON() as Parameters<typeof applyCrd>[1])
      .filter(Boolean);
    for (const crd of docs) crds.push(await applyCrd(kube, crd));
  }
  await createWorkloadNamespace(kube, ns);
  // Its healthz server listens on a port of its own beside the metrics one.
  const healthz = await freePorts(replicas);
  const ops = await startOperators({
    name: 'argo-rollouts',
    binary,
    replicas,
    lease: { namespace: ns, name: ROLLOUTS_LEASE },
    // The leader-election namespace is the Pod's (POD_NAMESPACE, as the downward API sets it).
    env: { POD_NAMESPACE: ns },
    args: (i, port) => [
      '--kubeconfig',
      cluster().kubeconfigPath,
      '--namespaced',
      '--namespace',
      ns,
      '--metricsPort',
      String(port),
      '--healthzPort',
      String(healthz[i]),
      '--leader-election-lease-duration',
      '15s',
      '--leader-election-renew-deadline',
      '10s',
      '--leader-election-retry-period',
      '2s',
    ],
  });
  // Each replica makes its identity itself (HOSTNAME_UUID) and logs it once, at its start: kept
  // before later logs push the line out of the output the tests keep.
  for (const r of ops.replicas) {
    r.identity = await eventually(
      `Argo Rollouts replica ${r.index}'s leader-election identity`,
      async () => /Leaderelection get id ([^\s"]+)/.exec(r.output())?.[1],
      30_000,
    );
  }
  await eventually('an Argo Rollouts replica to lead', () => ops.holder(kube), 60_000);
  return { ops, crds, crdFiles: CRD_FILES.map((f) => join(dirname(binary), f)) };
}
