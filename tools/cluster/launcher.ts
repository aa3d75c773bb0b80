/**
 * A real local control plane: etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok
 * (fake nodes and pod status), built from source by scripts/build-control-plane.sh and started as
 * local processes on loopback ports chosen at start.
 *
 * Everything it knows lives in `<dir>/state.json` so that any process (the cluster CLI, a test's
 * global setup, a test file) can attach to a running cluster, restart a component, or stop it all.
 *
 * Leader election is client-go's own by default: each candidate acquires and renews its Lease. A
 * cluster started with `leaderElection: 'coordinated'` (KEP-4355, beta and off by default through
 * Kubernetes 1.37) runs kube-apiserver with the CoordinatedLeaderElection gate and
 * coordination.k8s.io/v1beta1 (LeaseCandidate) served, and kube-controller-manager and
 * kube-scheduler with the gate, so they register LeaseCandidates and the API server's election
 * controller picks each Lease's holder. The flags are recorded in the state (`leaderElection`): a
 * running cluster reused with the other kind of election is restarted with its flags
 * (ensureLeaderElection), not taken for one that has them.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { request } from 'node:https';
import { dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import { kwokStagesYaml } from './kwok-stages.js';
import { componentService, componentSlice, slicePath, type PublishedComponent } from './control-plane-endpoints.js';
import { makeCa, makeClientCert, makeServiceAccountKeys, makeServingCert, type ClientIdentity } from './pki.js';
import { freePorts } from './ports.js';
import { isAlive, startProcess, stopPid, type ProcessSpec } from './process.js';
import { repoRoot } from '../root.js';

const run = promisify(execFile);

/** The folder a cluster keeps its state, data, certificates, kubeconfigs and logs in. */
export function defaultClusterDir(): string {
  return process.env.INFORMER_TRACE_CLUSTER_DIR ?? join(repoRoot, '.cluster');
}

export type Log = (line: string) => void;
const stderrLog: Log = (line) => process.stderr.write(`${line}\n`);

/** Users the cluster makes for tests of refused requests. */
export const restrictedUsers = {
  /** Authenticates, but holds no RBAC rights at all. */
  noAccess: { file: 'user-noaccess', user: 'it-noaccess', groups: [] },
  /** May only read (ClusterRole view) in the namespace `readerNamespace`. */
  namespaceReader: { file: 'user-ns-reader', user: 'it-ns-reader', groups: [] },
} as const satisfies Record<string, ClientIdentity>;
export const readerNamespace = 'it-readonly';

const identities: ClientIdentity[] = [
  { file: 'admin', user: 'kubernetes-admin', groups: ['system:masters'] },
  { file: 'controller-manager', user: 'system:kube-controller-manager', groups: [] },
  { file: 'scheduler', user: 'system:kube-scheduler', groups: [] },
  { file: 'kwok', user: 'kwok-controller', groups: ['system:masters'] },
  restrictedUsers.noAccess,
  restrictedUsers.namespaceReader,
];

/** Refuses an identity whose files are the cluster's own. */
function ownUser(id: ClientIdentity): void {
  if (identities.some((i) => i.file === id.file || i.user === id.user)) throw new Error(`${id.file} (${id.user}) is one of the cluster's own identities`);
}

export type ComponentName = 'etcd' | 'kube-apiserver' | 'kube-controller-manager' | 'kube-controller-manager-2' | 'kube-scheduler' | 'kwok';

interface ComponentState {
  pid: number;
  spec: ProcessSpec;
}

/** classic: client-go's leader election, each candidate acquiring its Lease; coordinated: the API server's election controller picks the holder. */
export type LeaderElectionMode = 'classic' | 'coordinated';

/** The control plane's leader-election flags, recorded in the state so a reused cluster can be checked against them. */
export interface LeaderElectionFlags {
  /** kube-apiserver, kube-controller-manager and kube-scheduler: --feature-gates. */
  featureGates: string;
  /** kube-apiserver: --runtime-config. */
  runtimeConfig: string;
}

/** Coordinated leader election on: the gate everywhere, and the API version that serves LeaseCandidate in 1.33 to 1.37. */
export const COORDINATED_LEADER_ELECTION_FLAGS: LeaderElectionFlags = {
  featureGates: 'CoordinatedLeaderElection=true',
  runtimeConfig: 'coordination.k8s.io/v1beta1=true',
};

export interface ClusterState {
  version: 1;
  /** Present when the control plane runs coordinated leader election; absent for client-go's own. */
  leaderElection?: LeaderElectionFlags;
  binDir: string;
  stagesDir: string;
  dir: string;
  ports: { etcd: number; etcdPeer: number; apiserver: number; kcm: number; kcm2: number; scheduler: number; kwok: number };
  components: Partial<Record<ComponentName, ComponentState>>;
  startedAt: string;
  nodes: string[];
}

export interface UpOptions {
  dir?: string;
  log?: Log;
  /** Number of fake kwok nodes. */
  nodes?: number;
  /** Default classic. A running cluster in `dir` with the other kind is restarted with this one. */
  leaderElection?: LeaderElectionMode;
}

function flagsOf(mode: LeaderElectionMode): LeaderElectionFlags | undefined {
  return mode === 'coordinated' ? { ...COORDINATED_LEADER_ELECTION_FLAGS } : undefined;
}

export class LocalCluster {
  private constructor(
    readonly dir: string,
    private state: ClusterState,
    private readonly log: Log,
  ) {}

  get kubeconfigPath(): string {
    return join(this.dir, 'kubeconfig');
  }
  get server(): string {
    return `https://127.0.0.1:${this.state.ports.apiserver}`;
  }
  get binDir(): string {
    return this.state.binDir;
  }
  get logDir(): string {
    return join(this.dir, 'logs');
  }
  get nodes(): string[] {
    return [...this.state.nodes];
  }
  get ports(): ClusterState['ports'] {
    return { ...this.state.ports };
  }
  /** The coordinated leader-election flags the control plane runs with; undefined under client-go's own election. */
  get leaderElection(): LeaderElectionFlags | undefined {
    return this.state.leaderElection && { ...this.state.leaderElection };
  }
  get leaderElectionMode(): LeaderElectionMode {
    return this.state.leaderElection ? 'coordinated' : 'classic';
  }
  /** Kubeconfig of a user that authenticates but has no RBAC rights. */
  get noAccessKubeconfig(): string {
    return join(this.dir, 'kubeconfig-noaccess');
  }
  /** Kubeconfig of a user that may only read in the namespace `readerNamespace`. */
  get namespaceReaderKubeconfig(): string {
    return join(this.dir, 'kubeconfig-ns-reader');
  }
  /**
   * A kubeconfig for a user of a test's or benchmark's own: a client certificate for `id`, signed
   * by the cluster's CA, in its pki folder, and `<dir>/kubeconfig-<file>` naming it (the path
   * returned). The user authenticates but holds no RBAC rights until bound; removeUser() deletes
   * both.
   */
  async userKubeconfig(id: ClientIdentity): Promise<string> {
    ownUser(id);
    const pki = join(this.dir, 'pki');
    await makeClientCert(pki, id);
    const path = join(this.dir, `kubeconfig-${id.file}`);
    writeFileSync(path, kubeconfigYaml(this.server, pki, id));
    return path;
  }
  /** Deletes what userKubeconfig() made for `id`. */
  removeUser(id: ClientIdentity): void {
    ownUser(id);
    for (const ext of ['crt', 'key', 'csr', 'ext']) rmSync(join(this.dir, 'pki', `${id.file}.${ext}`), { force: true });
    rmSync(join(this.dir, `kubeconfig-${id.file}`), { force: true });
  }
  /** https://127.0.0.1:PORT/metrics of a component, served with a self-signed certificate. */
  metricsUrl(component: 'kube-controller-manager' | 'kube-controller-manager-2' | 'kube-scheduler'): string {
    const port = {
      'kube-controller-manager': this.state.ports.kcm,
      'kube-controller-manager-2': this.state.ports.kcm2,
      'kube-scheduler': this.state.ports.scheduler,
    }[component];
    return `https://127.0.0.1:${port}/metrics`;
  }
  pid(component: ComponentName): number | undefined {
    const c = this.state.components[component];
    return c && isAlive(c.pid) ? c.pid : undefined;
  }

  /** Reads a running cluster's state, or undefined when there is none (or it has died). */
  static attach(dir = defaultClusterDir(), log: Log = stderrLog): LocalCluster | undefined {
    const file = join(dir, 'state.json');
    if (!existsSync(file)) return undefined;
    let state: ClusterState;
    try {
      state = JSON.parse(readFileSync(file, 'utf8')) as ClusterState;
    } catch {
      return undefined;
    }
    if (state.version !== 1) return undefined;
    return new LocalCluster(dir, state, log);
  }

  /** Starts a cluster, or reuses the one already running in `dir`. */
  static async up(options: UpOptions = {}): Promise<LocalCluster> {
    const dir = options.dir ?? defaultClusterDir();
    const log = options.log ?? stderrLog;
    const mode = options.leaderElection ?? 'classic';
    const existing = LocalCluster.attach(dir, log);
    if (existing) {
      if (await existing.healthy()) {
        log(`local cluster: already running (${existing.server}); reusing it`);
        await existing.ensureLeaderElection(mode);
        // A cluster started by an older version has not published them yet; not worth failing for.
        await existing
          .publishControlPlaneEndpoints()
          .catch((err: unknown) => log(`local cluster: could not publish the control-plane endpoints: ${err instanceof Error ? err.message : String(err)}`));
        await existing.ensureKwokStages();
        return existing;
      }
      log('local cluster: found a stopped or broken cluster; removing it and starting afresh');
      await existing.down();
    }
    const { binDir, stagesDir } = await buildControlPlane(log);
    const [etcd, etcdPeer, apiserver, kcm, kcm2, scheduler, kwok] = (await freePorts(7)) as [number, number, number, number, number, number, number];
    const state: ClusterState = {
      version: 1,
      binDir,
      stagesDir,
      dir,
      ports: { etcd, etcdPeer, apiserver, kcm, kcm2, scheduler, kwok },
      ...(mode === 'coordinated' ? { leaderElection: flagsOf(mode) } : {}),
      components: {},
      startedAt: new Date().toISOString(),
      nodes: [],
    };
    rmSync(dir, { recursive: true, force: true });
    for (const sub of ['pki', 'data', 'logs', 'kwok']) mkdirSync(join(dir, sub), { recursive: true });
    const cluster = new LocalCluster(dir, state, log);
    try {
      await cluster.bootstrap(options.nodes ?? 2);
    } catch (err) {
      await cluster.down({ keepLogs: true });
      throw err;
    }
    return cluster;
  }

  private async bootstrap(nodeCount: number): Promise<void> {
    const pki = join(this.dir, 'pki');
    await makeCa(pki);
    await makeServingCert(pki);
    await makeServiceAccountKeys(pki);
    for (const id of identities) await makeClientCert(pki, id);
    const kubeconfigs: Record<string, string> = {
      admin: this.kubeconfigPath,
      'controller-manager': join(this.dir, 'kubeconfig-controller-manager'),
      scheduler: join(this.dir, 'kubeconfig-scheduler'),
      kwok: join(this.dir, 'kubeconfig-kwok'),
      'user-noaccess': this.noAccessKubeconfig,
      'user-ns-reader': this.namespaceReaderKubeconfig,
    };
    for (const id of identities) {
      writeFileSync(kubeconfigs[id.file]!, kubeconfigYaml(this.server, pki, id));
    }
    this.writeKwokStages();
    this.defineComponents();

    await this.startComponent('etcd', () => this.etcdHealthy());
    await this.startComponent('kube-apiserver', () => this.apiReady());
    await this.applyBootstrapObjects();
    await this.startComponent('kube-controller-manager', () => this.componentHealthy(this.state.ports.kcm));
    await this.startComponent('kube-scheduler', () => this.componentHealthy(this.state.ports.scheduler));
    await this.publishControlPlaneEndpoints();
    await this.startComponent('kwok', () => this.kwokHealthy());
    this.state.nodes = await this.createNodes(nodeCount);
    await this.waitFor('nodes Ready', 120_000, () => this.nodesReady());
    await this.waitFor('kube-system/default ServiceAccount', 60_000, () => this.defaultServiceAccountExists());
    this.save();
    this.log(`local cluster: ready at ${this.server}`);
  }

  private defineComponents(): void {
    for (const [name, spec] of Object.entries(this.componentSpecs())) {
      this.state.components[name as ComponentName] = { pid: 0, spec };
    }
  }

  /** The leader-election flags a component runs with, from the state. */
  private leaderElectionArgs(component: 'kube-apiserver' | 'kube-controller-manager' | 'kube-scheduler'): string[] {
    const f = this.state.leaderElection;
    if (!f) return [];
    return [`--feature-gates=${f.featureGates}`, ...(component === 'kube-apiserver' ? [`--runtime-config=${f.runtimeConfig}`] : [])];
  }

  /**
   * Makes a running cluster's control plane run the leader election `mode` asks for: when its state
   * records other flags (coordinated ones on a cluster that should run client-go's own election,
   * none on one that should be coordinated), restarts kube-apiserver, kube-controller-manager and
   * kube-scheduler with the flags of `mode`, as it restarts kwok for a changed stage set; a second
   * kube-controller-manager is stopped. True when it restarted them.
   */
  async ensureLeaderElection(mode: LeaderElectionMode): Promise<boolean> {
    this.reload();
    const have = this.state.leaderElection;
    const want = flagsOf(mode);
    if (have?.featureGates === want?.featureGates && have?.runtimeConfig === want?.runtimeConfig) return false;
    this.log(`local cluster: leader-election flags changed (${mode} leader election); restarting kube-apiserver, kube-controller-manager and kube-scheduler`);
    for (const name of ['kube-scheduler', 'kube-controller-manager-2', 'kube-controller-manager', 'kube-apiserver'] as const) await this.stopComponent(name);
    if (want) this.state.leaderElection = want;
    else delete this.state.leaderElection;
    const specs = this.componentSpecs();
    for (const name of ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler'] as const) {
      this.state.components[name] = { pid: 0, spec: specs[name] };
    }
    delete this.state.components['kube-controller-manager-2'];
    this.save();
    await this.startComponentAgain('kube-apiserver');
    await this.startComponentAgain('kube-controller-manager');
    await this.startComponentAgain('kube-scheduler');
    await this.publishControlPlaneEndpoints();
    return true;
  }

  private componentSpecs(): Record<Exclude<ComponentName, 'kube-controller-manager-2'>, ProcessSpec> {
    const s = this.state;
    const pki = join(this.dir, 'pki');
    const bin = (b: string): string => join(s.binDir, b);
    const logFile = (n: string): string => join(this.dir, 'logs', `${n}.log`);
    const specs: Record<Exclude<ComponentName, 'kube-controller-manager-2'>, ProcessSpec> = {
      etcd: {
        name: 'etcd',
        command: bin('etcd'),
        args: [
          '--name=local',
          `--data-dir=${join(this.dir, 'data', 'etcd')}`,
          `--listen-client-urls=http://127.0.0.1:${s.ports.etcd}`,
          `--advertise-client-urls=http://127.0.0.1:${s.ports.etcd}`,
          `--listen-peer-urls=http://127.0.0.1:${s.ports.etcdPeer}`,
          `--initial-advertise-peer-urls=http://127.0.0.1:${s.ports.etcdPeer}`,
          `--initial-cluster=local=http://127.0.0.1:${s.ports.etcdPeer}`,
          '--unsafe-no-fsync',
          '--quota-backend-bytes=8589934592',
          '--log-level=warn',
        ],
        log: logFile('etcd'),
      },
      'kube-apiserver': {
        name: 'kube-apiserver',
        command: bin('kube-apiserver'),
        args: [
          `--etcd-servers=http://127.0.0.1:${s.ports.etcd}`,
          '--bind-address=127.0.0.1',
          '--advertise-address=127.0.0.1',
          `--secure-port=${s.ports.apiserver}`,
          `--tls-cert-file=${join(pki, 'apiserver.crt')}`,
          `--tls-private-key-file=${join(pki, 'apiserver.key')}`,
          `--client-ca-file=${join(pki, 'ca.crt')}`,
          '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
          `--service-account-key-file=${join(pki, 'sa.pub')}`,
          `--service-account-signing-key-file=${join(pki, 'sa.key')}`,
          '--authorization-mode=Node,RBAC',
          '--service-cluster-ip-range=10.96.0.0/16',
          '--endpoint-reconciler-type=none',
          '--allow-privileged=true',
          '--profiling=false',
          `--cert-dir=${join(this.dir, 'data', 'apiserver-certs')}`,
          ...this.leaderElectionArgs('kube-apiserver'),
          '--v=1',
        ],
        log: logFile('kube-apiserver'),
      },
      'kube-controller-manager': this.controllerManagerSpec('kube-controller-manager', s.ports.kcm),
      'kube-scheduler': {
        name: 'kube-scheduler',
        command: bin('kube-scheduler'),
        args: [
          `--kubeconfig=${join(this.dir, 'kubeconfig-scheduler')}`,
          `--authentication-kubeconfig=${join(this.dir, 'kubeconfig-scheduler')}`,
          `--authorization-kubeconfig=${join(this.dir, 'kubeconfig-scheduler')}`,
          '--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics',
          '--bind-address=127.0.0.1',
          `--secure-port=${s.ports.scheduler}`,
          `--cert-dir=${join(this.dir, 'data', 'scheduler-certs')}`,
          '--leader-elect=true',
          ...this.leaderElectionArgs('kube-scheduler'),
          '--v=1',
        ],
        log: logFile('kube-scheduler'),
      },
      kwok: {
        name: 'kwok',
        command: bin('kwok'),
        args: [
          `--kubeconfig=${join(this.dir, 'kubeconfig-kwok')}`,
          '--manage-all-nodes=false',
          '--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake',
          '--disregard-status-with-annotation-selector=kwok.x-k8s.io/status=custom',
          '--cidr=10.244.0.0/16',
          '--node-ip=10.240.0.1',
          '--node-lease-duration-seconds=40',
          `--server-address=127.0.0.1:${s.ports.kwok}`,
          `--config=${join(this.dir, 'kwok', 'stages.yaml')}`,
        ],
        log: logFile('kwok'),
      },
    };
    return specs;
  }

  private controllerManagerSpec(name: string, port: number): ProcessSpec {
    const pki = join(this.dir, 'pki');
    const kc = join(this.dir, 'kubeconfig-controller-manager');
    return {
      name,
      command: join(this.state.binDir, 'kube-controller-manager'),
      args: [
        `--kubeconfig=${kc}`,
        `--authentication-kubeconfig=${kc}`,
        `--authorization-kubeconfig=${kc}`,
        '--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics',
        '--bind-address=127.0.0.1',
        `--secure-port=${port}`,
        `--cert-dir=${join(this.dir, 'data', `${name}-certs`)}`,
        '--leader-elect=true',
        `--service-account-private-key-file=${join(pki, 'sa.key')}`,
        `--root-ca-file=${join(pki, 'ca.crt')}`,
        '--controllers=*',
        // Each controller acts as its own service account (system:controller:*), as kubeadm sets it up.
        '--use-service-account-credentials=true',
        ...this.leaderElectionArgs('kube-controller-manager'),
        '--v=1',
      ],
      log: join(this.dir, 'logs', `${name}.log`),
    };
  }

  private writeKwokStages(): void {
    writeFileSync(join(this.dir, 'kwok', 'stages.yaml'), kwokStagesYaml(this.state.stagesDir));
  }

  /**
   * Makes a running cluster's kwok use the current stage set: when its stage file differs (a
   * cluster started by an older version), rewrites it and restarts kwok. True when it restarted.
   */
  async ensureKwokStages(): Promise<boolean> {
    const file = join(this.dir, 'kwok', 'stages.yaml');
    const want = kwokStagesYaml(this.state.stagesDir);
    const have = existsSync(file) ? readFileSync(file, 'utf8') : '';
    if (have === want && this.pid('kwok')) return false;
    writeFileSync(file, want);
    this.log('local cluster: kwok stage set changed; restarting kwok');
    await this.stopComponent('kwok');
    await this.startComponentAgain('kwok');
    return true;
  }

  /**
   * Reads state.json again before a change to it: another LocalCluster (a test's helper attaches
   * afresh) may have restarted a component since this one was made, and saving our older copy
   * would record that component's old, dead pid.
   */
  private reload(): void {
    const fresh = LocalCluster.attach(this.dir, this.log);
    if (fresh && fresh.state.startedAt === this.state.startedAt) this.state = fresh.state;
  }

  /** Starts a defined component and waits for its health check; a process that exits is an error. */
  private async startComponent(name: ComponentName, healthy: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
    this.reload();
    const c = this.state.components[name];
    if (!c) throw new Error(`no component ${name} is defined`);
    this.log(`local cluster: starting ${name}`);
    const started = startProcess(c.spec);
    c.pid = started.pid;
    this.save();
    let exit: string | undefined;
    void started.exited.then((e) => {
      exit = e;
    });
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (exit !== undefined) {
        throw new Error(`${name} exited at start (${exit}); log: ${c.spec.log}`);
      }
      if (await healthy().catch(() => false)) return;
      if (Date.now() > deadline) throw new Error(`${name} did not become healthy within ${timeoutMs / 1000}s; log: ${c.spec.log}`);
      await delay(250);
    }
  }

  private async waitFor(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await check().catch(() => false))) {
      if (Date.now() > deadline) throw new Error(`local cluster: timed out waiting for ${what}; logs in ${this.logDir}`);
      await delay(250);
    }
  }

  private save(): void {
    writeFileSync(join(this.dir, 'state.json'), JSON.stringify(this.state, null, 2));
  }

  // ---- health checks ---------------------------------------------------------------------------

  private async etcdHealthy(): Promise<boolean> {
    const res = await fetch(`http://127.0.0.1:${this.state.ports.etcd}/health`).catch(() => undefined);
    return res?.ok === true;
  }

  private async apiReady(): Promise<boolean> {
    const r = await this.adminRequest('GET', '/readyz').catch(() => undefined);
    return r?.status === 200;
  }

  private async componentHealthy(port: number): Promise<boolean> {
    const r = await httpsGet(`https://127.0.0.1:${port}/healthz`, { rejectUnauthorized: false }).catch(() => undefined);
    return r?.status === 200;
  }

  private async kwokHealthy(): Promise<boolean> {
    const res = await fetch(`http://127.0.0.1:${this.state.ports.kwok}/healthz`).catch(() => undefined);
    return res?.ok === true;
  }

  private async nodesReady(): Promise<boolean> {
    const r = await this.adminRequest('GET', '/api/v1/nodes');
    if (r.status !== 200) return false;
    const list = JSON.parse(r.body) as { items: { metadata: { name: string }; status?: { conditions?: { type: string; status: string }[] } }[] };
    const ready = list.items.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
    return this.state.nodes.every((n) => ready.some((r2) => r2.metadata.name === n));
  }

  private async defaultServiceAccountExists(): Promise<boolean> {
    const r = await this.adminRequest('GET', '/api/v1/namespaces/default/serviceaccounts/default');
    return r.status === 200;
  }

  /** True when the API server answers /readyz and every started component is alive. */
  async healthy(): Promise<boolean> {
    for (const name of ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kwok'] as const) {
      if (!this.pid(name)) return false;
    }
    return this.apiReady();
  }

  // ---- requests as the admin -------------------------------------------------------------------

  /** A request to the API server as the cluster admin (system:masters). */
  async adminRequest(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; body: string }> {
    const pki = join(this.dir, 'pki');
    const [ca, cert, key] = await Promise.all(['ca.crt', 'admin.crt', 'admin.key'].map((f) => readFile(join(pki, f))));
    return httpsRequest(`${this.server}${path}`, {
      method,
      ca: ca!,
      cert: cert!,
      key: key!,
      body: body === undefined ? undefined : JSON.stringify(body),
      contentType,
    });
  }

  private async applyBootstrapObjects(): Promise<void> {
    const objects: [string, unknown][] = [
      ['/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: readerNamespace } }],
      [
        `/apis/rbac.authorization.k8s.io/v1/namespaces/${readerNamespace}/rolebindings`,
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: { name: 'it-ns-reader-view', namespace: readerNamespace },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
          subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: restrictedUsers.namespaceReader.user }],
        },
      ],
    ];
    for (const [path, obj] of objects) {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const r = await this.adminRequest('POST', path, obj);
        if (r.status === 201 || r.status === 409) break;
        // The RBAC bootstrap roles appear shortly after /readyz; retry briefly.
        if (Date.now() > deadline) throw new Error(`local cluster: could not create ${path}: ${r.status} ${r.body}`);
        await delay(500);
      }
    }
  }

  private async createNodes(count: number): Promise<string[]> {
    const names: string[] = [];
    for (let i = 0; i < count; i++) {
      const name = `kwok-node-${i}`;
      const node = {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: {
          name,
          annotations: { 'kwok.x-k8s.io/node': 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
          labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', type: 'kwok' },
        },
        spec: {},
        status: {
          allocatable: { cpu: '64', memory: '256Gi', pods: '1000' },
          capacity: { cpu: '64', memory: '256Gi', pods: '1000' },
          nodeInfo: {
            architecture: 'amd64',
            kubeletVersion: 'fake',
            operatingSystem: 'linux',
            kernelVersion: '',
            kubeProxyVersion: '',
            osImage: '',
            containerRuntimeVersion: '',
            bootID: '',
            machineID: '',
            systemUUID: '',
          },
          phase: 'Running',
        },
      };
      const r = await this.adminRequest('POST', '/api/v1/nodes', node);
      if (r.status !== 201 && r.status !== 409) throw new Error(`local cluster: could not create node ${name}: ${r.status} ${r.body}`);
      names.push(name);
    }
    return names;
  }

  // ---- operations for tests --------------------------------------------------------------------

  /** Stops kube-apiserver (SIGTERM); watches break and requests are refused until it starts again. */
  async stopApiServer(): Promise<void> {
    await this.stopComponent('kube-apiserver');
  }

  /**
   * Starts kube-apiserver again with the same flags and port, and waits for /readyz. Components that
   * exit because kube-apiserver was down are started again, as a kubelet would restart them:
   * kube-controller-manager and kube-scheduler exit when they cannot renew their leader Lease within
   * RenewDeadline, and that can happen just after /readyz (a renewal already in flight when
   * kube-apiserver stopped times out late). So it also waits until each leader Lease is renewed
   * after /readyz, restarting whatever exits meanwhile: a leader that renews has kept its lead.
   */
  async startApiServer(timeoutMs = 90_000): Promise<void> {
    await this.startComponent('kube-apiserver', () => this.apiReady());
    const readyAt = Date.now();
    const restartExited = async (): Promise<void> => {
      for (const name of ['kube-controller-manager', 'kube-controller-manager-2', 'kube-scheduler', 'kwok'] as const) {
        const c = this.state.components[name];
        if (c?.pid && !isAlive(c.pid)) {
          this.log(`local cluster: ${name} exited while kube-apiserver was down; starting it again`);
          await this.startComponentAgain(name);
        }
      }
    };
    const leases = ['kube-controller-manager', 'kube-scheduler'].filter((lease) => this.state.components[lease as ComponentName]?.pid);
    const renewedSinceReady = async (lease: string): Promise<boolean> => {
      const r = await this.adminRequest('GET', `/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/${lease}`);
      if (r.status !== 200) return false;
      const renewTime = (JSON.parse(r.body) as { spec?: { renewTime?: string } }).spec?.renewTime;
      return renewTime !== undefined && Date.parse(renewTime) > readyAt;
    };
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await restartExited();
      const pending = [];
      for (const lease of leases) if (!(await renewedSinceReady(lease).catch(() => false))) pending.push(lease);
      if (pending.length === 0) break;
      if (Date.now() > deadline)
        throw new Error(
          `local cluster: the ${pending.join(' and ')} Lease was not renewed within ${timeoutMs / 1000}s of kube-apiserver's restart; logs in ${this.logDir}`,
        );
      await delay(250);
    }
    await restartExited();
  }

  /** Starts a second kube-controller-manager that competes for the same Lease. */
  async startSecondControllerManager(): Promise<void> {
    this.reload();
    this.state.components['kube-controller-manager-2'] = { pid: 0, spec: this.controllerManagerSpec('kube-controller-manager-2', this.state.ports.kcm2) };
    this.save();
    await this.startComponent('kube-controller-manager-2', () => this.componentHealthy(this.state.ports.kcm2));
    await this.putObject(slicePath('kube-controller-manager', 2), componentSlice('kube-controller-manager', 2, this.state.ports.kcm2));
  }

  /**
   * Publishes kube-controller-manager and kube-scheduler as kube-prometheus expects to find them
   * (see control-plane-endpoints.ts), so metrics tools discover them without flags. Idempotent; a
   * second kube-controller-manager gets its own slice while it runs.
   */
  async publishControlPlaneEndpoints(): Promise<void> {
    const components: [PublishedComponent, number][] = [
      ['kube-controller-manager', this.state.ports.kcm],
      ['kube-scheduler', this.state.ports.scheduler],
    ];
    for (const [component, port] of components) {
      await this.putObject(`/api/v1/namespaces/kube-system/services/${component}`, componentService(component));
      await this.putObject(slicePath(component, 1), componentSlice(component, 1, port));
    }
    // A second instance that is gone (a test that ended early) must not stay published.
    if (!this.pid('kube-controller-manager-2')) await this.adminRequest('DELETE', slicePath('kube-controller-manager', 2));
  }

  /** Creates an object, or replaces it when it exists (PUT with its resourceVersion). */
  private async putObject(path: string, obj: object): Promise<void> {
    const collection = path.slice(0, path.lastIndexOf('/'));
    const created = await this.adminRequest('POST', collection, obj);
    if (created.status === 201) return;
    if (created.status !== 409) throw new Error(`local cluster: could not create ${path}: ${created.status} ${created.body}`);
    const current = await this.adminRequest('GET', path);
    const rv = (JSON.parse(current.body) as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion;
    const meta = (obj as { metadata: object }).metadata;
    const replaced = await this.adminRequest('PUT', path, { ...obj, metadata: { ...meta, resourceVersion: rv } });
    if (replaced.status !== 200) throw new Error(`local cluster: could not update ${path}: ${replaced.status} ${replaced.body}`);
  }

  /** Kills a component without a chance to release its Lease (SIGKILL). */
  async killComponent(name: ComponentName): Promise<void> {
    await this.stopComponent(name, 'SIGKILL');
  }

  /** Stops a component (SIGTERM, then SIGKILL after a grace period). */
  async stopComponent(name: ComponentName, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    this.reload();
    const c = this.state.components[name];
    if (!c) return;
    await stopPid(c.pid, 10_000, signal);
    c.pid = 0;
    this.save();
    // Its endpoint goes with it; the first instance's stays, as a dead target does in Prometheus.
    if (name === 'kube-controller-manager-2') await this.adminRequest('DELETE', slicePath('kube-controller-manager', 2)).catch(() => undefined);
  }

  /** Starts a stopped component again with the flags it had. */
  async startComponentAgain(name: ComponentName): Promise<void> {
    const health: Record<ComponentName, () => Promise<boolean>> = {
      etcd: () => this.etcdHealthy(),
      'kube-apiserver': () => this.apiReady(),
      'kube-controller-manager': () => this.componentHealthy(this.state.ports.kcm),
      'kube-controller-manager-2': () => this.componentHealthy(this.state.ports.kcm2),
      'kube-scheduler': () => this.componentHealthy(this.state.ports.scheduler),
      kwok: () => this.kwokHealthy(),
    };
    await this.startComponent(name, health[name]);
  }

  /** Stops kwok, so node heartbeats (and pod status updates) stop until it starts again. */
  async stopKwok(): Promise<void> {
    await this.stopComponent('kwok');
  }

  /**
   * Starts kwok again. Each node's Lease left from before the stop is deleted first: kwok creates
   * the Lease of a node it does not find in its cache yet, and when the old one is still there that
   * creation fails and kwok leaves the node's Pods as they are (NotReady, as the node lifecycle
   * controller made them) until something else about them changes. With the Leases gone, kwok
   * creates each at once and takes every node's Pods up again.
   */
  async startKwok(): Promise<void> {
    for (const node of this.nodes) {
      const r = await this.adminRequest('DELETE', `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${node}`);
      if (r.status >= 300 && r.status !== 404) throw new Error(`DELETE the Lease of node ${node}: ${r.status} ${r.body.slice(0, 200)}`);
    }
    await this.startComponentAgain('kwok');
  }

  /** Compacts etcd at its current revision: watches from older resourceVersions then get 410 Gone. */
  async compactEtcd(): Promise<number> {
    const endpoint = `--endpoints=http://127.0.0.1:${this.state.ports.etcd}`;
    const etcdctl = join(this.state.binDir, 'etcdctl');
    const status = await run(etcdctl, [endpoint, 'endpoint', 'status', '--write-out=json']);
    const parsed = JSON.parse(status.stdout) as { Status: { header: { revision: number } } }[];
    const revision = parsed[0]!.Status.header.revision;
    await run(etcdctl, [endpoint, 'compact', String(revision), '--physical']);
    return revision;
  }

  /**
   * Stops every process it started, by pid, and removes the cluster folder. The pids are read from
   * state.json again first: another process (a test file) may have restarted a component since this
   * object was made. Then any process still running with this cluster's folder in its arguments
   * (all of them carry it) is stopped too, so nothing is left behind.
   */
  async down(options: { keepLogs?: boolean } = {}): Promise<void> {
    const fresh = LocalCluster.attach(this.dir, this.log);
    if (fresh) this.state = fresh.state;
    const order: ComponentName[] = ['kwok', 'kube-scheduler', 'kube-controller-manager-2', 'kube-controller-manager', 'kube-apiserver', 'etcd'];
    for (const name of order) {
      const c = this.state.components[name];
      if (c?.pid) await stopPid(c.pid, 10_000);
    }
    await Promise.all(processesMentioning(this.dir).map((pid) => stopPid(pid, 10_000)));
    if (options.keepLogs) {
      for (const sub of ['data', 'pki', 'kwok']) rmSync(join(this.dir, sub), { recursive: true, force: true });
      rmSync(join(this.dir, 'state.json'), { force: true });
    } else {
      rmSync(this.dir, { recursive: true, force: true });
    }
  }

  describe(): Record<string, unknown> {
    const components: Record<string, unknown> = {};
    for (const [name, c] of Object.entries(this.state.components)) {
      components[name] = { pid: c.pid, running: isAlive(c.pid), log: c.spec.log };
    }
    return {
      server: this.server,
      kubeconfig: this.kubeconfigPath,
      startedAt: this.state.startedAt,
      nodes: this.state.nodes,
      leaderElection: this.leaderElectionMode,
      leaderElectionFlags: this.state.leaderElection ?? null,
      components,
    };
  }
}

const componentBinaries = new Set(['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kwok']);

/**
 * Pids of control-plane processes (etcd, kube-*, kwok) whose arguments mention the folder `text`
 * (Linux /proc; elsewhere none).
 */
export function processesMentioning(text: string): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const pids: number[] = [];
  for (const e of entries) {
    if (!/^\d+$/.test(e) || Number(e) === process.pid) continue;
    try {
      const argv = readFileSync(`/proc/${e}/cmdline`, 'utf8').split('\0');
      const binary = argv[0]?.split('/').pop() ?? '';
      if (componentBinaries.has(binary) && argv.some((arg) => arg.includes(`${text}/`))) pids.push(Number(e));
    } catch {
      /* gone meanwhile */
    }
  }
  return pids;
}

/** Builds (or finds cached) control-plane binaries via the project's build script. */
export async function buildControlPlane(log: Log): Promise<{ binDir: string; stagesDir: string }> {
  const script = join(repoRoot, 'scripts', 'build-control-plane.sh');
  const child = await new Promise<{ code: number; stdout: string }>((resolveRun, reject) => {
    import('node:child_process').then(({ spawn }) => {
      const p = spawn('bash', [script], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      p.stderr.on('data', (d: Buffer) => {
        for (const line of d.toString().split('\n')) if (line.trim()) log(line);
      });
      p.on('error', reject);
      p.on('exit', (code) => resolveRun({ code: code ?? 1, stdout }));
    }, reject);
  });
  if (child.code !== 0) throw new Error('the control-plane build failed (see the line above)');
  const binDir = child.stdout.trim().split('\n').pop() ?? '';
  return { binDir, stagesDir: join(dirname(binDir), 'kwok-stages') };
}

function kubeconfigYaml(server: string, pki: string, id: ClientIdentity): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: local',
    '  cluster:',
    `    server: ${server}`,
    `    certificate-authority: ${join(pki, 'ca.crt')}`,
    'users:',
    `- name: ${id.user}`,
    '  user:',
    `    client-certificate: ${join(pki, `${id.file}.crt`)}`,
    `    client-key: ${join(pki, `${id.file}.key`)}`,
    'contexts:',
    `- name: local`,
    '  context:',
    '    cluster: local',
    `    user: ${id.user}`,
    '    namespace: default',
    'current-context: local',
    '',
  ].join('\n');
}

interface HttpsOptions {
  method?: string;
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  body?: string | undefined;
  contentType?: string;
  rejectUnauthorized?: boolean;
}

function httpsRequest(url: string, o: HttpsOptions): Promise<{ status: number; body: string }> {
  return new Promise((resolveReq, reject) => {
    const req = request(
      url,
      {
        method: o.method ?? 'GET',
        ...(o.ca ? { ca: o.ca } : {}),
        ...(o.cert ? { cert: o.cert, key: o.key } : {}),
        rejectUnauthorized: o.rejectUnauthorized ?? true,
        headers: o.body ? { 'content-type': o.contentType ?? 'application/json' } : {},
        timeout: 10_000,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolveReq({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    if (o.body) req.write(o.body);
    req.end();
  });
}

export function httpsGet(url: string, o: HttpsOptions = {}): Promise<{ status: number; body: string }> {
  return httpsRequest(url, { ...o, method: 'GET' });
}
