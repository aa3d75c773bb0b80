/**
 * Shared pieces of the e2e tests: the running local cluster, an admin client, namespaces that are
 * removed afterwards, polling, and running the plugins in-process.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { SIMULATE_ANNOTATION, type SimulatedFailure } from '../../tools/cluster/kwok-stages.js';
import { httpsGet, LocalCluster, type ComponentName } from '../../tools/cluster/launcher.js';
import type { ProgramFactory } from '../../src/cli/run.js';
import { startCli as startCliWith, type CliResult, type LiveCli } from '../../tools/testing/cli.js';
import { ApiLeaseClient, connect, type Kube, type KubeObject } from '../../src/kube/index.js';
import type { Hop } from '../../src/trace/index.js';
import type { DeltaLine, MarkerLine, SyncedLine } from '../../src/view/cache-view.js';
import type { FaultProxy } from '../../tools/cluster/fault-proxy.js';
import { createInformerTraceProgram } from '../../src/commands/informer-trace.js';

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

export interface DeploymentOptions {
  /** The container's CPU request: more than any node has leaves the Pods unschedulable. */
  cpu?: string;
  /** A failure kwok simulates for the Pods (see SIMULATE_ANNOTATION). */
  simulate?: SimulatedFailure;
  /** More metadata of the Deployment itself (labels, annotations). */
  metadata?: Record<string, unknown>;
}

/** A Deployment of Pods labelled app=NAME with one container, which kwok runs (its image is never pulled). */
export function deploymentManifest(name: string, replicas: number, o: DeploymentOptions = {}): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, ...o.metadata },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name }, ...(o.simulate ? { annotations: { [SIMULATE_ANNOTATION]: o.simulate } } : {}) },
        spec: { containers: [{ name: 'app', image: 'registry.invalid/app:1', ...(o.cpu ? { resources: { requests: { cpu: o.cpu } } } : {}) }] },
      },
    },
  };
}

export async function createDeployment(kube: Kube, namespace: string, name: string, replicas: number, o: DeploymentOptions = {}): Promise<void> {
  await kube.client.json(`/apis/apps/v1/namespaces/${namespace}/deployments`, { method: 'POST', body: deploymentManifest(name, replicas, o) });
}

/** Waits until a Deployment's status has caught up with its spec and all `replicas` are updated and available. */
export async function deploymentAvailable(kube: Kube, namespace: string, name: string, replicas: number): Promise<void> {
  await eventually(
    `${name} available with ${replicas} replicas`,
    async () => {
      const d = await kube.client.json<{
        metadata: { generation?: number };
        status?: { availableReplicas?: number; updatedReplicas?: number; replicas?: number; observedGeneration?: number };
      }>(`/apis/apps/v1/namespaces/${namespace}/deployments/${name}`);
      return (
        d.status?.observedGeneration === d.metadata.generation &&
        d.status?.availableReplicas === replicas &&
        d.status.updatedReplicas === replicas &&
        d.status.replicas === replicas
      );
    },
    120_000,
  );
}

export async function deleteNamespace(kube: Kube, name: string): Promise<void> {
  await kube.client.json(`/api/v1/namespaces/${name}`, { method: 'DELETE' }).catch(() => undefined);
}

/**
 * Creates a namespaced CRD of `kind` in `group` (version v1, any fields, with the status
 * subresource), waits until it is established, and returns its name.
 */
export async function createCrd(kube: Kube, group: string, names: { kind: string; plural: string; shortNames?: string[] }): Promise<string> {
  const name = `${names.plural}.${group}`;
  await kube.client.json('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
    method: 'POST',
    body: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural: names.plural, singular: names.kind.toLowerCase(), kind: names.kind, ...(names.shortNames ? { shortNames: names.shortNames } : {}) },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            subresources: { status: {} },
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    },
  });
  await eventually('the CRD to be established', async () => {
    const crd = await kube.client.json<{ status?: { conditions?: { type: string; status: string }[] } }>(
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`,
    );
    return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
  });
  return name;
}

/** Deletes a CRD (and so its objects) and waits until it is gone. */
export async function deleteCrd(kube: Kube, name: string): Promise<void> {
  const path = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`;
  await kube.client.json(path, { method: 'DELETE' }).catch(() => undefined);
  await eventually(`CRD ${name} to be gone`, () =>
    kube.client.json(path).then(
      () => false,
      () => true,
    ),
  );
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
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${last instanceof Error ? last.message : inspect(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** The lines of NDJSON a command printed (a finished one's stdout, or a running one's so far). */
export function ndjsonLines<T>(stdout: string): T[] {
  return stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as T);
}

/** The hops a trace's `-o ndjson` stream printed so far (its `hop` events, whole lines only), in order. */
export function ndjsonHops(stdout: string): Hop[] {
  const whole = stdout.slice(0, stdout.lastIndexOf('\n') + 1);
  return ndjsonLines<{ type: string; hop?: Hop }>(whole).flatMap((e) => (e.type === 'hop' && e.hop ? [e.hop] : []));
}

/** The cache a `cache -o ndjson` stream built: key → resourceVersion, its every delta applied in order. */
export function cacheFromStream(lines: readonly { kind: string }[]): Map<string, string> {
  const cache = new Map<string, string>();
  for (const d of lines.filter((l): l is DeltaLine => l.kind === 'delta')) {
    if (d.type === 'Deleted') cache.delete(d.key);
    else cache.set(d.key, d.resourceVersion);
  }
  return cache;
}

/** A fresh List of the collection at `path`, as the admin straight from the API server: namespace/name → resourceVersion. */
export async function freshList(kube: Kube, path: string): Promise<Map<string, string>> {
  const list = await kube.client.json<{ items: KubeObject[] }>(path);
  return new Map(list.items.map((o) => [`${o.metadata.namespace}/${o.metadata.name}`, o.metadata.resourceVersion ?? '']));
}

/** The same keys with the same resourceVersions, in any order. */
export function sameCache(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  return JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());
}

export type { CliResult, LiveCli } from '../../tools/testing/cli.js';

/** What a program run to its end printed, and its exit code (-1 when it could not start or was killed). */
export interface ExecResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a program (a built binary, kubectl, a plugin) as a separate process with exactly `env`, and
 * resolves with its exit code and output instead of failing, so a test can assert on a failure too.
 */
export function execProgram(file: string, args: readonly string[], options: { env: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number }): Promise<ExecResult> {
  return new Promise((resolve) => {
    execFile(
      file,
      [...args],
      { env: options.env, cwd: options.cwd, timeout: options.timeoutMs ?? 120_000, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
        resolve({ code, stdout, stderr: err !== null && code === -1 && stderr === '' ? err.message : stderr });
      },
    );
  });
}

/** Starts a plugin's program in-process, as bin/ would; its output can be read while it runs. */
export function startCli(factory: ProgramFactory, argv: string[], options: { env?: NodeJS.ProcessEnv; signal?: AbortSignal } = {}): LiveCli {
  return startCliWith(factory, argv, { ...process.env, CI: 'true', ...options.env }, options.signal);
}

/** Runs a plugin's program in-process, as bin/ would, with captured output. */
export function runCli(factory: ProgramFactory, argv: string[], options: { env?: NodeJS.ProcessEnv; signal?: AbortSignal } = {}): Promise<CliResult> {
  return startCli(factory, argv, options).done;
}

/**
 * Resolves with the first stderr line of a running command that matches `pattern`; fails with the
 * command's output if it ends without writing one, or after `timeoutMs`.
 */
export async function stderrLine(cli: LiveCli, pattern: RegExp, timeoutMs = 60_000): Promise<string> {
  let ended: CliResult | undefined;
  void cli.done.then(
    (r) => (ended = r),
    () => undefined,
  );
  const found = (): string | undefined =>
    cli
      .stderr()
      .split('\n')
      .find((l) => pattern.test(l));
  // null: the command ended without such a line, so there is nothing left to wait for.
  const line = await eventually(`a stderr line matching ${pattern}`, async () => found() ?? (ended ? null : undefined), timeoutMs, 20);
  if (line === null) throw new Error(`the command ended (exit ${ended!.code}) without a stderr line matching ${pattern}; stderr:\n${ended!.stderr}`);
  return line;
}

interface PodLike {
  metadata: { name: string; namespace: string; deletionTimestamp?: string; annotations?: Record<string, string> };
  status?: { phase?: string; conditions?: { type: string; status: string }[] };
}

/**
 * What keeps the shared cluster usable for the tests after a fault: every node Ready, every Pod
 * that should be Ready in kube-system and `namespaces` Ready (not finished, not terminating, not one
 * made to fail on purpose), and the kube-controller-manager and kube-scheduler leader Leases held
 * and renewed. Waits for it, then resolves; fails naming what is still unhealthy.
 */
export async function clusterHealthy(kube: Kube, namespaces: string[] = [], timeoutMs = 120_000): Promise<void> {
  let problems: string[] = [];
  const check = async (): Promise<boolean> => {
    problems = [];
    const nodes = await kube.client.json<{ items: { metadata: { name: string }; status?: { conditions?: { type: string; status: string }[] } }[] }>(
      '/api/v1/nodes',
    );
    for (const name of cluster().nodes) {
      const n = nodes.items.find((x) => x.metadata.name === name);
      if (!n?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) problems.push(`node ${name} not Ready`);
    }
    for (const ns of ['kube-system', ...namespaces]) {
      const pods = await kube.client.json<{ items: PodLike[] }>(`/api/v1/namespaces/${ns}/pods`).catch(() => ({ items: [] as PodLike[] }));
      for (const p of pods.items) {
        if (p.metadata.deletionTimestamp || p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed') continue;
        if (p.metadata.annotations?.['informer-trace.test/simulate']) continue;
        if (!p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) problems.push(`Pod ${ns}/${p.metadata.name} not Ready`);
      }
    }
    for (const name of ['kube-controller-manager', 'kube-scheduler']) {
      const l = await kube.client
        .json<{ spec?: { holderIdentity?: string; renewTime?: string; leaseDurationSeconds?: number } }>(
          `/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/${name}`,
        )
        .catch(() => undefined);
      const renewed = l?.spec?.renewTime ? Date.parse(l.spec.renewTime) + (l.spec.leaseDurationSeconds ?? 0) * 1000 > Date.now() : false;
      if (!l?.spec?.holderIdentity || !renewed) problems.push(`Lease kube-system/${name} not held and renewed`);
    }
    return problems.length === 0;
  };
  try {
    await eventually('the cluster to be healthy', check, timeoutMs, 500);
  } catch {
    throw new Error(`the cluster is not healthy after ${timeoutMs} ms: ${problems.join('; ')}`);
  }
}

/** Which kube-controller-manager instance holds the lease: it logs the event "<identity> became leader". */
export function componentHolding(identity: string): ComponentName | undefined {
  for (const name of ['kube-controller-manager', 'kube-controller-manager-2'] as const) {
    let log = '';
    try {
      log = readFileSync(join(cluster().logDir, `${name}.log`), 'utf8');
    } catch {
      continue;
    }
    if (log.includes(`message="${identity} became leader"`)) return name;
  }
  return undefined;
}

/**
 * After a failover test: the first kube-controller-manager running and leading, the second stopped
 * (it does not release on SIGTERM, so that takes one more lease duration).
 */
export async function firstControllerManagerLeads(victim: ComponentName | undefined): Promise<void> {
  const c = cluster();
  const leases = new ApiLeaseClient(adminKube().client);
  if (victim === 'kube-controller-manager') await c.startComponentAgain('kube-controller-manager');
  await c.stopComponent('kube-controller-manager-2');
  await eventually(
    'the first kube-controller-manager to lead again',
    async () => {
      const holder = (await leases.get('kube-system', 'kube-controller-manager'))?.spec?.holderIdentity;
      return holder ? componentHolding(holder) === 'kube-controller-manager' : false;
    },
    60_000,
    500,
  );
}

/**
 * Waits until the component on its published metrics port leads (its own
 * leader_election_master_status is 1). After an earlier test killed a leader, the Lease can still
 * name the dead instance for up to its lease duration, with the restarted one standing by.
 */
export async function publishedInstanceLeads(name: 'kube-controller-manager' | 'kube-scheduler', timeoutMs = 60_000): Promise<void> {
  const url = cluster().metricsUrl(name);
  await eventually(
    `${name} at ${url} to lead`,
    async () => {
      const r = await httpsGet(url, { rejectUnauthorized: false }).catch(() => undefined);
      return r !== undefined && /^leader_election_master_status\{[^}]*\} 1$/m.test(r.body);
    },
    timeoutMs,
    500,
  );
}

/** What `cache … --watch -o ndjson` prints, a line each. */
export type CacheLine = DeltaLine | MarkerLine | SyncedLine;

export const cacheLines = (cli: LiveCli): CacheLine[] => ndjsonLines<CacheLine>(cli.stdout());

export const deltasOf = (all: readonly CacheLine[]): DeltaLine[] => all.filter((l): l is DeltaLine => l.kind === 'delta');

/** Starts `cache configmaps -n NS --watch -o ndjson` with this kubeconfig and waits for its sync. */
export async function watchConfigMaps(ns: string, kubeconfig: string, signal: AbortSignal): Promise<LiveCli> {
  const cli = startCli(createInformerTraceProgram, ['cache', 'configmaps', '-n', ns, '--watch', '-o', 'ndjson', '--kubeconfig', kubeconfig], { signal });
  await eventually('the synced line', async () => cacheLines(cli).some((l) => l.kind === 'synced'), 60_000, 50);
  return cli;
}

/** Waits until every proxied connection of these ids is closed (after a thaw, the plugin's close reaches the proxy). */
export async function connectionsClosed(proxy: FaultProxy, ids: ReadonlySet<number>, timeoutMs: number): Promise<void> {
  await eventually(
    'every connection open at the freeze to be closed',
    async () =>
      proxy
        .connections()
        .filter((c) => ids.has(c.id))
        .every((c) => c.closed),
    timeoutMs,
    50,
  );
}

/** Waits until what a `cache --watch -o ndjson` stream holds equals a fresh List of `path` (straight from the API server). */
export async function streamMatchesFreshList(cli: LiveCli, kube: Kube, path: string): Promise<Map<string, string>> {
  const fresh = await freshList(kube, path);
  await eventually('the stream to match a fresh List', async () => sameCache(cacheFromStream(cacheLines(cli)), fresh), 10_000, 100);
  return fresh;
}
