/**
 * The probe's canary: a small Deployment it owns, created when missing and marked as the probe's
 * by a label, so that an existing Deployment of the same name that is not the probe's is never
 * taken over. With --target the probe uses an existing workload and never creates or deletes it.
 */
import { UsageError } from '../errors.js';
import { isNotFound, ObjectWriter, resourcePath, type Kube, type KubeObject, type ResourceInfo } from '../kube/index.js';

export const DEFAULT_CANARY_NAME = 'informer-trace-canary';
export const DEFAULT_CANARY_IMAGE = 'registry.k8s.io/pause:3.10';
/** Marks a Deployment as a probe's canary. */
export const CANARY_LABEL = 'informer-trace.io/probe-canary';

export interface CanarySpec {
  namespace: string;
  name: string;
  image: string;
  replicas: number;
}

export function canaryManifest(spec: CanarySpec): KubeObject {
  const labels = { 'app.kubernetes.io/name': spec.name, 'app.kubernetes.io/managed-by': 'kubectl-informer-trace-probe', [CANARY_LABEL]: 'true' };
  const selector = { 'app.kubernetes.io/name': spec.name, [CANARY_LABEL]: 'true' };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: spec.name, namespace: spec.namespace, labels },
    spec: {
      replicas: spec.replicas,
      selector: { matchLabels: selector },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      template: {
        metadata: { labels },
        spec: {
          automountServiceAccountToken: false,
          terminationGracePeriodSeconds: 1,
          enableServiceLinks: false,
          containers: [
            {
              name: 'canary',
              image: spec.image,
              resources: { requests: { cpu: '1m', memory: '8Mi' }, limits: { cpu: '10m', memory: '16Mi' } },
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                runAsNonRoot: true,
                runAsUser: 65532,
                capabilities: { drop: ['ALL'] },
              },
            },
          ],
        },
      },
    },
  } as KubeObject;
}

/**
 * Creates the canary when it does not exist; an existing Deployment of that name must carry the
 * canary label. Returns whether it was created.
 */
export async function ensureCanary(kube: Kube, deployments: ResourceInfo, spec: CanarySpec, signal?: AbortSignal): Promise<boolean> {
  const writer = new ObjectWriter(kube.client);
  try {
    const existing = await writer.get(deployments, spec.namespace, spec.name, signal);
    if (existing.metadata.labels?.[CANARY_LABEL] !== 'true') {
      throw new UsageError(
        `deployment ${spec.namespace}/${spec.name} exists and is not a probe canary (no ${CANARY_LABEL} label); the probe does not take it over`,
        {
          hint: `probe it as it is with --target deploy/${spec.name}, or choose another --canary-name`,
        },
      );
    }
    return false;
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  await kube.client.json(resourcePath(deployments, spec.namespace), {
    method: 'POST',
    body: canaryManifest(spec),
    signal,
    describe: { verb: 'create', resource: 'deployments.apps', namespace: spec.namespace, name: spec.name },
  });
  return true;
}
