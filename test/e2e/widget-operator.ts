/**
 * The widget operator of the e2e tests of custom resources (test/fixtures/widget-operator, a
 * controller-runtime operator built from the Go module proxy into the cache): its CRD, N replicas
 * started against the cluster (operators.ts), and Widget manifests.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { repoRoot } from '../../tools/root.js';
import type { Kube } from '../../src/kube/index.js';
import { cluster, deleteCrd } from './helpers.js';
import { applyCrd, buildFixture, startOperators, type Operators } from './operators.js';

export const WIDGET_FIXTURE_DIR = join(repoRoot, 'test', 'fixtures', 'widget-operator');
export const WIDGET_GROUP = 'fixtures.informer-trace.dev';
export const WIDGET_VERSION = 'v1';
export const WIDGET_API_VERSION = `${WIDGET_GROUP}/${WIDGET_VERSION}`;
export const WIDGET_CRD = `widgets.${WIDGET_GROUP}`;
/** The field manager of every write of the operator (managedFields). */
export const WIDGET_FIELD_MANAGER = 'widget-operator';
/** The Lease name the operator elects its leader through unless told otherwise. */
export const WIDGET_DEFAULT_LEASE = 'widget-operator';
/** The controller name in its metrics (controller_runtime_reconcile_total{controller="widget"}) and workqueue. */
export const WIDGET_CONTROLLER = 'widget';
/** The image of the Deployment's container (never pulled: kwok runs the Pods). */

/** Builds the operator once per test process and resolves with the binary's path. */
export function buildWidgetOperator(): Promise<string> {
  return buildFixture(join(WIDGET_FIXTURE_DIR, 'build.sh'), 'the widget operator');
}

/** The CRD of crd.yaml as an object. */
export function widgetCrdManifest(): Record<string, unknown> {
  return parseYaml(readFileSync(join(WIDGET_FIXTURE_DIR, 'crd.yaml'), 'utf8')) as Record<string, unknown>;
}

/** Installs the Widget CRD (idempotent) and waits until it is served. Resolves with the CRD's name. */
export function installWidgetCrd(kube: Kube, timeoutMs = 60_000): Promise<string> {
  return applyCrd(kube, widgetCrdManifest() as Parameters<typeof applyCrd>[1], timeoutMs);
}

/** Deletes the Widget CRD (and so every Widget) and waits until it is gone. */
export async function deleteWidgetCrd(kube: Kube): Promise<void> {
  await deleteCrd(kube, WIDGET_CRD);
}

export interface WidgetOperatorOptions {
  /** The namespace whose Widgets are reconciled and where the Lease lives (--namespace). */
  namespace: string;
  /** How many replicas to start (default 1); one leads, the others stand by. */
  replicas?: number;
  /** The Lease's name (--leader-election-id; default widget-operator). */
  leaderElectionId?: string;
  /**
   * Leader-election identities (--identity), one per replica; default `<leaderElectionId>-<i>`
   * (i from 0), so a Lease's holderIdentity names the replica. `false`: controller-runtime's
   * hostname_UUID.
   */
  identities?: string[] | false;
  /** Default: the local cluster's admin kubeconfig. */
  kubeconfig?: string;
  /** Release the Lease on SIGTERM (--release-on-cancel), for a quick failover; default false. */
  releaseOnCancel?: boolean;
  /** Leader-election timings (Go durations such as '4s'): --lease-duration, --renew-deadline, --retry-period. */
  leaseDuration?: string;
  renewDeadline?: string;
  retryPeriod?: string;
  /** More arguments for every replica (for example ['--zap-log-level=debug']). */
  args?: string[];
  /** Wait until every replica's metrics endpoint answers (default true). */
  waitForMetrics?: boolean;
  timeoutMs?: number;
}

/**
 * Builds the operator (once) and starts `replicas` instances against the cluster, each with its
 * metrics on a free port of 127.0.0.1; by default resolves once every metrics endpoint answers.
 * The CRD must be installed first (installWidgetCrd). Stop them with `stop()` in a finally.
 */
export async function startWidgetOperators(o: WidgetOperatorOptions): Promise<Operators> {
  const binary = await buildWidgetOperator();
  const n = o.replicas ?? 1;
  const leaseName = o.leaderElectionId ?? WIDGET_DEFAULT_LEASE;
  const kubeconfig = o.kubeconfig ?? cluster().kubeconfigPath;
  const identities = o.identities === false ? [] : (o.identities ?? Array.from({ length: n }, (_, i) => `${leaseName}-${i}`));
  if (o.identities && o.identities.length !== n) throw new Error(`${n} replicas but ${o.identities.length} identities`);
  return startOperators({
    name: 'widget-operator',
    binary,
    replicas: n,
    lease: { namespace: o.namespace, name: leaseName },
    identities,
    waitForMetrics: o.waitForMetrics,
    timeoutMs: o.timeoutMs,
    args: (index, port) => [
      '--kubeconfig',
      kubeconfig,
      '--namespace',
      o.namespace,
      '--leader-election-id',
      leaseName,
      '--metrics-bind-address',
      `127.0.0.1:${port}`,
      ...(identities[index] !== undefined ? ['--identity', identities[index]] : []),
      ...(o.releaseOnCancel ? ['--release-on-cancel'] : []),
      ...(o.leaseDuration ? ['--lease-duration', o.leaseDuration] : []),
      ...(o.renewDeadline ? ['--renew-deadline', o.renewDeadline] : []),
      ...(o.retryPeriod ? ['--retry-period', o.retryPeriod] : []),
      ...(o.args ?? []),
    ],
  });
}

export type WidgetMode = '' | 'stall' | 'fail' | 'slow';

export interface WidgetOptions {
  /** spec.replicas (the CRD defaults it to 1). */
  replicas?: number;
  /** spec.message: the ConfigMap's data.message. */
  message?: string;
  /** spec.mode: '' reconciles normally; stall, fail, slow as main.go describes. */
  mode?: WidgetMode;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** A Widget (fixtures.informer-trace.dev/v1); unset spec fields are left to the CRD's defaults. */
export function widgetManifest(name: string, o: WidgetOptions = {}): Record<string, unknown> {
  const spec: Record<string, unknown> = {};
  if (o.replicas !== undefined) spec.replicas = o.replicas;
  if (o.message !== undefined) spec.message = o.message;
  if (o.mode !== undefined) spec.mode = o.mode;
  return {
    apiVersion: WIDGET_API_VERSION,
    kind: 'Widget',
    metadata: {
      name,
      ...(o.namespace ? { namespace: o.namespace } : {}),
      ...(o.labels ? { labels: o.labels } : {}),
      ...(o.annotations ? { annotations: o.annotations } : {}),
    },
    spec,
  };
}
