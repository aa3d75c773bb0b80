/**
 * The order in which a set of objects is applied so that each finds what it needs: a Namespace
 * before what lives in it, a CustomResourceDefinition (and its Established condition) before its
 * custom resources, a ServiceAccount and its RBAC before the workload that runs as it, ConfigMaps,
 * Secrets and claims before the Pods that mount them, a Service before its Pods (so that their
 * environment names it), then the workloads, then everything else. Webhook configurations come
 * last: one whose service is not up yet would refuse the writes after it.
 *
 * Keyed by API group and kind; within a step, the order the files give is kept.
 */
import type { KubeObject } from '../kube/index.js';
import { groupOf } from '../readiness/index.js';

/**
 * The steps, in order; a kind not named is a custom resource or alike, applied after the
 * workloads: the built-in kinds whose controllers make Pods.
 */
export const APPLY_STEPS = ['namespaces', 'definitions', 'identity', 'config', 'services', 'workloads', 'others', 'webhooks'] as const;
export type ApplyStep = (typeof APPLY_STEPS)[number];

const STEP_OF: Record<string, ApplyStep> = {
  '/Namespace': 'namespaces',
  'apiextensions.k8s.io/CustomResourceDefinition': 'definitions',
  'scheduling.k8s.io/PriorityClass': 'identity',
  'storage.k8s.io/StorageClass': 'identity',
  '/ServiceAccount': 'identity',
  '/ResourceQuota': 'identity',
  '/LimitRange': 'identity',
  'rbac.authorization.k8s.io/ClusterRole': 'identity',
  'rbac.authorization.k8s.io/ClusterRoleBinding': 'identity',
  'rbac.authorization.k8s.io/Role': 'identity',
  'rbac.authorization.k8s.io/RoleBinding': 'identity',
  'networking.k8s.io/NetworkPolicy': 'identity',
  'policy/PodDisruptionBudget': 'identity',
  '/ConfigMap': 'config',
  '/Secret': 'config',
  '/PersistentVolume': 'config',
  '/PersistentVolumeClaim': 'config',
  '/Service': 'services',
  '/Pod': 'workloads',
  '/ReplicationController': 'workloads',
  'apps/Deployment': 'workloads',
  'apps/ReplicaSet': 'workloads',
  'apps/StatefulSet': 'workloads',
  'apps/DaemonSet': 'workloads',
  'batch/Job': 'workloads',
  'batch/CronJob': 'workloads',
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration': 'webhooks',
  'admissionregistration.k8s.io/MutatingWebhookConfiguration': 'webhooks',
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy': 'webhooks',
  'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding': 'webhooks',
  'apiregistration.k8s.io/APIService': 'webhooks',
};

/** The step an object is applied in. */
export function applyStep(obj: Pick<KubeObject, 'apiVersion' | 'kind'>): ApplyStep {
  return STEP_OF[`${groupOf(obj.apiVersion)}/${obj.kind ?? ''}`] ?? 'others';
}

/** `items` in apply order: by step, and within a step as given. */
export function inApplyOrder<T>(items: readonly T[], objectOf: (item: T) => Pick<KubeObject, 'apiVersion' | 'kind'>): T[] {
  const rank = (item: T): number => APPLY_STEPS.indexOf(applyStep(objectOf(item)));
  return items
    .map((item, i) => ({ item, i, r: rank(item) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map((x) => x.item);
}
