/**
 * Operators the e2e tests run as real processes against the local control plane: a Go program built
 * once from the module proxy into the cache (test/fixtures/build-go-fixture.sh, through the fixture's
 * build.sh), its CRDs installed by server-side apply and waited for, and N replicas started, each
 * with its metrics on a free port of 127.0.0.1, electing a leader through one Lease, stopped again.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { freePorts } from '../../tools/cluster/ports.js';
import type { Kube } from '../../src/kube/index.js';
import { deleteCrd, deleteNamespace, eventually } from './helpers.js';

const builds = new Map<string, Promise<string>>();

/**
 * Runs a fixture's build.sh (with `args`: which of its programs) once per test process (minutes the
 * first time while modules download, then found in the cache by its sources' hash) and resolves with
 * the binary's path.
 */
export function buildFixture(buildScript: string, name: string, args: readonly string[] = []): Promise<string> {
  const key = [buildScript, ...args].join('\0');
  let built = builds.get(key);
  if (!built) {
    built = promisify(execFile)('bash', [buildScript, ...args], { maxBuffer: 1 << 20 }).then(
      ({ stdout }) => stdout.trim().split('\n').pop()!,
      (err: unknown) => {
        builds.delete(key);
        const stderr = (err as { stderr?: string }).stderr;
        throw new Error(`building ${name} failed${stderr ? `: ${stderr.trim()}` : ''}`, { cause: err });
      },
    );
    builds.set(key, built);
  }
  return built;
}

/**
 * Installs a CRD by server-side apply (idempotent: any number of tests may call it) and waits until
 * it is Established and its resource is served. Resolves with the CRD's name.
 */
export async function applyCrd(
  kube: Kube,
  crd: { metadata: { name: string }; spec: { group: string; names: { plural: string }; versions: { name: string; storage?: boolean }[] } },
  timeoutMs = 60_000,
): Promise<string> {
  const name = crd.metadata.name;
  const path = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`;
  await kube.client.json(path, {
    method: 'PATCH',
    query: { fieldManager: 'informer-trace-e2e', force: true },
    contentType: 'application/apply-patch+yaml',
    body: JSON.stringify(crd),
  });
  await eventually(
    `the CRD ${name} to be established`,
    async () =>
      (await kube.client.json<{ status?: { conditions?: { type: string; status: string }[] } }>(path)).status?.conditions?.some(
        (c) => c.type === 'Established' && c.status === 'True',
      ),
    timeoutMs,
  );
  const version = crd.spec.versions.find((v) => v.storage)?.name ?? crd.spec.versions[0]!.name;
  await eventually(
    `${crd.spec.group}/${version} ${crd.spec.names.plural} to be served`,
    async () =>
      (await kube.client.json<{ resources?: { name: string }[] }>(`/apis/${crd.spec.group}/${version}`)).resources?.some(
        (r) => r.name === crd.spec.names.plural,
      ),
    timeoutMs,
  );
  return name;
}

export interface OperatorReplica {
  index: number;
  /** Its leader-election identity: the one the test chose, or the one it logged (set by the test). */
  identity: string | undefined;
  port: number;
  /** http://127.0.0.1:PORT/metrics */
  metricsUrl: string;
  process: ChildProcess;
  /** Resolves with its exit code (or the signal's name) when it has exited. */
  exited: Promise<number | string | null>;
  /** Its stdout and stderr so far (the last 256 KiB), for failure messages. */
  output(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. */
  stop(graceMs?: number): Promise<void>;
}

export interface Operators {
  name: string;
  /** The namespace and name of the Lease the replicas elect their leader through. */
  lease: { namespace: string; name: string };
  replicas: OperatorReplica[];
  metricsUrls: string[];
  /** The Lease's holderIdentity now, or undefined. */
  holder(kube: Kube): Promise<string | undefined>;
  /** Stops every replica (see OperatorReplica.stop). */
  stop(graceMs?: number): Promise<void>;
}

export interface StartOperatorsOptions {
  /** For messages: "widget-operator", "kuberay". */
  name: string;
  binary: string;
  replicas: number;
  lease: { namespace: string; name: string };
  /** The arguments of replica `index`, whose metrics listen on 127.0.0.1:`port`. */
  args(index: number, port: number): string[];
  /** Leader-election identities, one per replica, when the program takes one. */
  identities?: string[];
  /** More environment variables for every replica (beside this process's own). */
  env?: NodeJS.ProcessEnv;
  /** Wait until every replica's metrics endpoint answers (default true). */
  waitForMetrics?: boolean;
  timeoutMs?: number;
}

const OUTPUT_LIMIT = 256 * 1024;

function exitedPromise(p: ChildProcess): Promise<number | string | null> {
  if (p.exitCode !== null || p.signalCode !== null) return Promise.resolve(p.exitCode ?? p.signalCode);
  return new Promise((resolve) => {
    p.once('exit', (code, signal) => resolve(code ?? signal));
    p.once('error', () => resolve(null));
  });
}

const running = (p: ChildProcess): boolean => p.exitCode === null && p.signalCode === null;

/**
 * Starts the replicas; by default resolves once every metrics endpoint answers, and stops them all
 * again if one exits first. Stop them with `stop()` in a finally.
 */
export async function startOperators(o: StartOperatorsOptions): Promise<Operators> {
  const ports = await freePorts(o.replicas);
  const replicas = ports.map((port, index): OperatorReplica => {
    const proc = spawn(o.binary, o.args(index, port), { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...o.env } });
    let out = '';
    const take = (chunk: Buffer): void => {
      out += chunk.toString('utf8');
      if (out.length > OUTPUT_LIMIT) out = out.slice(out.length - OUTPUT_LIMIT);
    };
    proc.stdout!.on('data', take);
    proc.stderr!.on('data', take);
    const exited = exitedPromise(proc);
    const stop = async (graceMs = 10_000): Promise<void> => {
      if (!running(proc)) return;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
      try {
        await exited;
      } finally {
        clearTimeout(timer);
      }
    };
    return { index, identity: o.identities?.[index], port, metricsUrl: `http://127.0.0.1:${port}/metrics`, process: proc, exited, output: () => out, stop };
  });
  const ops: Operators = {
    name: o.name,
    lease: o.lease,
    replicas,
    metricsUrls: replicas.map((r) => r.metricsUrl),
    async holder(kube) {
      const lease = await kube.client
        .json<{ spec?: { holderIdentity?: string } }>(`/apis/coordination.k8s.io/v1/namespaces/${o.lease.namespace}/leases/${o.lease.name}`)
        .catch(() => undefined);
      return lease?.spec?.holderIdentity || undefined;
    },
    async stop(graceMs) {
      await Promise.all(replicas.map((r) => r.stop(graceMs)));
    },
  };
  if (o.waitForMetrics ?? true) {
    const timeoutMs = o.timeoutMs ?? 30_000;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const dead = replicas.find((r) => !running(r.process));
      const failure = dead
        ? `${o.name} replica ${dead.index} exited (${dead.process.exitCode ?? dead.process.signalCode}) before its metrics answered; its output:\n${dead.output()}`
        : Date.now() > deadline
          ? `timed out after ${timeoutMs} ms waiting for the ${o.name} metrics endpoints ${ops.metricsUrls.join(', ')}; replica 0's output:\n${replicas[0]?.output() ?? ''}`
          : undefined;
      if (failure) {
        await ops.stop(2_000);
        throw new Error(failure);
      }
      if (
        (
          await Promise.all(
            replicas.map((r) =>
              fetch(r.metricsUrl).then(
                (x) => x.ok,
                () => false,
              ),
            ),
          )
        ).every(Boolean)
      )
        break;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  return ops;
}

/** An operator a test file started (startKubeRay, startArgoRollouts): its replicas and the CRDs it installed. */
export interface StartedOperator {
  ops: Operators | undefined;
  crds: string[];
}

/** Undoes what a test file set up for an operator: stops its replicas, deletes its namespace and then its CRDs. */
export async function tearDownOperator(kube: Kube, ns: string, started: StartedOperator): Promise<void> {
  await started.ops?.stop();
  await deleteNamespace(kube, ns);
  for (const crd of started.crds) await deleteCrd(kube, crd);
  started.crds = [];
}
