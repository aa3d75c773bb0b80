/**
 * Connection settings as kubectl takes them: --kubeconfig or KUBECONFIG (several files, merged the
 * way kubectl merges them: the first file to set a name or the current context wins), --context,
 * --cluster, --user, --server, --token, --certificate-authority, --insecure-skip-tls-verify,
 * --request-timeout and -n. In a pod with no kubeconfig, the in-cluster service account.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
// The module that defines KubeConfig, not the package's index: the index loads every generated API
// client and its models as well, most of the plugin's startup time and memory.
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import type { Cluster, Context, User } from '@kubernetes/client-node/dist/config_types.js';
import { load as loadYaml } from 'js-yaml';
import { UsageError } from '../errors.js';
import { inCheckoutWith } from '../util/checkout.js';
import { parseDuration } from '../util/duration.js';

export interface ConnectionFlags {
  kubeconfig?: string | undefined;
  context?: string | undefined;
  cluster?: string | undefined;
  user?: string | undefined;
  server?: string | undefined;
  token?: string | undefined;
  certificateAuthority?: string | undefined;
  insecureSkipTlsVerify?: boolean | undefined;
  /** kubectl's form: "0" (none), "30s", "1m", or a bare number of seconds. */
  requestTimeout?: string | undefined;
  /** kubectl's --disable-compression: do not ask for gzip. */
  disableCompression?: boolean | undefined;
  namespace?: string | undefined;
}

export interface Connection {
  kubeConfig: KubeConfig;
  contextName: string;
  server: string;
  /** The namespace from -n, else the context's, else "default". */
  namespace: string;
  /** True when -n was given. */
  namespaceExplicit: boolean;
  userName: string;
  /** 0 means no timeout. */
  requestTimeoutMs: number;
  /**
   * Whether requests ask for gzip: all but with --disable-compression or a cluster entry's
   * `disable-compression: true`.
   */
  compression: boolean;
  /** Where the settings came from, for messages. */
  source: string;
  /**
   * How long credentials may be reused before they are read again (a service account token that
   * the kubelet rotates); absent: until a 401.
   */
  credentialsTtlMs?: number | undefined;
}

/** The kubeconfig files kubectl would read, in order: --kubeconfig, else $KUBECONFIG, else ~/.kube/config. */
export function kubeconfigFiles(flags: ConnectionFlags, env: NodeJS.ProcessEnv = process.env): string[] {
  if (flags.kubeconfig) return [flags.kubeconfig];
  if (env.KUBECONFIG) return env.KUBECONFIG.split(delimiter).filter((f) => f.length > 0);
  return [join(homedir(), '.kube', 'config')];
}

/** True when some kubeconfig (or in-cluster service account) is there to use. */
export function hasConfiguredCluster(flags: ConnectionFlags = {}, env: NodeJS.ProcessEnv = process.env): boolean {
  if (flags.server) return true;
  if (kubeconfigFiles(flags, env).some((f) => existsSync(f))) return true;
  return Boolean(env.KUBERNETES_SERVICE_HOST);
}

interface KubeconfigFile {
  kc: KubeConfig;
  /** Clusters whose entry sets `disable-compression: true` (client-node's KubeConfig drops the field). */
  compressionOff: Set<string>;
}

function loadFile(file: string): KubeconfigFile {
  const kc = new KubeConfig();
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read kubeconfig ${file}: ${(err as Error).message}`, { cause: err });
  }
  try {
    kc.loadFromString(text, { onInvalidEntry: 'filter' });
  } catch (err) {
    throw new UsageError(`kubeconfig ${file} is not valid: ${(err as Error).message.split('\n')[0]}`, {
      hint: `check it with: kubectl config view --kubeconfig ${file}`,
      cause: err,
    });
  }
  kc.makePathsAbsolute(join(file, '..'));
  return { kc, compressionOff: compressionOffClusters(text) };
}

/** The clusters of a kubeconfig whose entry sets `disable-compression: true`, as kubectl reads it. */
function compressionOffClusters(text: string): Set<string> {
  const names = new Set<string>();
  // The file was parsed already; parse it again only when it names the field, with the parser
  // KubeConfig.loadFromString uses (a later duplicate key wins, as in JSON.parse).
  if (!text.includes('disable-compression')) return names;
  let doc: { clusters?: unknown } | null;
  try {
    doc = loadYaml(text, { json: true }) as { clusters?: unknown } | null;
  } catch {
    return names;
  }
  const clusters = Array.isArray(doc?.clusters) ? (doc.clusters as ({ name?: unknown; cluster?: { 'disable-compression'?: unknown } | null } | null)[]) : [];
  for (const entry of clusters) {
    if (typeof entry?.name === 'string' && entry.cluster?.['disable-compression'] === true) names.add(entry.name);
  }
  return names;
}

/** Merges kubeconfig files as kubectl does: first definition of a name wins, first current-context wins. */
function mergeFiles(files: string[]): { kc: KubeConfig; used: string[]; compressionOff: Set<string> } {
  const clusters: Cluster[] = [];
  const compressionOff = new Set<string>();
  const users: User[] = [];
  const contexts: Context[] = [];
  let currentContext = '';
  const used: string[] = [];
  for (const file of files) {
    const { kc: one, compressionOff: off } = loadFile(file);
    used.push(file);
    for (const c of one.clusters ?? []) {
      if (clusters.some((x) => x.name === c.name)) continue;
      clusters.push(c);
      if (off.has(c.name)) compressionOff.add(c.name);
    }
    for (const u of one.users ?? []) if (!users.some((x) => x.name === u.name)) users.push(u);
    for (const c of one.contexts ?? []) if (!contexts.some((x) => x.name === c.name)) contexts.push(c);
    if (!currentContext && one.currentContext) currentContext = one.currentContext;
  }
  const kc = new KubeConfig();
  kc.loadFromOptions({ clusters, users, contexts, currentContext });
  return { kc, used, compressionOff };
}

export function loadConnection(flags: ConnectionFlags, env: NodeJS.ProcessEnv = process.env): Connection {
  const requestTimeoutMs = parseRequestTimeout(flags.requestTimeout);
  const files = kubeconfigFiles(flags, env);
  let kc: KubeConfig;
  let source: string;
  let inCluster: InClusterConfig | undefined;
  let compressionOff = new Set<string>();
  if (flags.kubeconfig && !existsSync(flags.kubeconfig)) {
    throw new UsageError(`kubeconfig ${flags.kubeconfig} does not exist`, { hint: 'pass an existing file to --kubeconfig' });
  }
  const existing = files.filter((f) => existsSync(f));
  if (existing.length > 0) {
    const merged = mergeFiles(existing);
    kc = merged.kc;
    compressionOff = merged.compressionOff;
    source = merged.used.join(delimiter);
  } else if (env.KUBERNETES_SERVICE_HOST && !flags.server) {
    inCluster = inClusterConfig(env);
    kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'in-cluster', server: inCluster.server, skipTLSVerify: false, ...(inCluster.caFile ? { caFile: inCluster.caFile } : {}) }],
      users: [{ name: 'in-cluster', authProvider: { name: SERVICE_ACCOUNT_AUTH_PROVIDER, config: {} } }],
      contexts: [{ name: 'in-cluster', cluster: 'in-cluster', user: 'in-cluster', namespace: inCluster.namespace }],
      currentContext: 'in-cluster',
    });
    source = 'in-cluster service account';
  } else if (flags.server) {
    kc = new KubeConfig();
    kc.loadFromOptions({ clusters: [], users: [], contexts: [], currentContext: '' });
    source = '--server';
  } else {
    throw new UsageError(`no kubeconfig found (looked for ${files.join(', ')})`, {
      hint: inCheckoutWith('cluster:up')
        ? 'pass --kubeconfig, set KUBECONFIG, or start the local cluster with: npm run cluster:up'
        : 'pass --kubeconfig FILE, or set KUBECONFIG to the kubeconfig kubectl uses for the cluster',
    });
  }

  const contextName = flags.context ?? kc.getCurrentContext() ?? '';
  let context: Context | null = contextName ? kc.getContextObject(contextName) : null;
  if (flags.context && !context) {
    const names = kc.getContexts().map((c) => c.name);
    throw new UsageError(`context "${flags.context}" not found in ${source}`, {
      hint: names.length ? `known contexts: ${names.join(', ')}` : 'the kubeconfig defines no contexts',
    });
  }
  if (!context && !flags.server && !(flags.cluster && flags.user)) {
    throw new UsageError(`no current context in ${source}`, { hint: 'pass --context, or set one with: kubectl config use-context NAME' });
  }

  const clusterName = flags.cluster ?? context?.cluster ?? 'cli-cluster';
  const userName = flags.user ?? context?.user ?? 'cli-user';
  let cluster = kc.getCluster(clusterName);
  if (flags.cluster && !cluster) {
    throw new UsageError(`cluster "${flags.cluster}" not found in ${source}`, {
      hint: `known clusters: ${
        kc
          .getClusters()
          .map((c) => c.name)
          .join(', ') || 'none'
      }`,
    });
  }
  let user = kc.getUser(userName);
  if (flags.user && !user) {
    throw new UsageError(`user "${flags.user}" not found in ${source}`, {
      hint: `known users: ${
        kc
          .getUsers()
          .map((u) => u.name)
          .join(', ') || 'none'
      }`,
    });
  }
  if (!cluster && !flags.server) {
    throw new UsageError(`context "${contextName}" refers to cluster "${clusterName}", which ${source} does not define`);
  }
  if (flags.certificateAuthority && !existsSync(flags.certificateAuthority)) {
    throw new UsageError(`certificate authority file ${flags.certificateAuthority} does not exist`);
  }
  const server = flags.server ?? cluster?.server ?? '';
  validateServer(server);
  cluster = {
    ...(cluster ?? {}),
    name: clusterName,
    server,
    // Nothing to verify over plain http:// (kubectl proxy, for one), which kubectl accepts as it
    // is; client-node refuses http:// unless TLS verification is marked skipped.
    skipTLSVerify: new URL(server).protocol === 'http:' || (flags.insecureSkipTlsVerify ?? cluster?.skipTLSVerify ?? false),
    ...(flags.certificateAuthority ? { caFile: flags.certificateAuthority, caData: undefined } : {}),
  } as Cluster;
  if (flags.insecureSkipTlsVerify) cluster = { ...cluster, caFile: undefined, caData: undefined } as Cluster;
  user = {
    ...(user ?? {}),
    name: userName,
    ...(flags.token
      ? { token: flags.token, certData: undefined, certFile: undefined, keyData: undefined, keyFile: undefined, exec: undefined, authProvider: undefined }
      : {}),
  } as User;
  context = { name: contextName || 'cli', cluster: clusterName, user: userName, ...(context?.namespace ? { namespace: context.namespace } : {}) };

  const resolved = new KubeConfig();
  resolved.loadFromOptions({ clusters: [cluster], users: [user], contexts: [context], currentContext: context.name });
  const tokenFile = inCluster && !flags.token ? inCluster.tokenFile : undefined;
  if (tokenFile) resolved.addAuthenticator(new ServiceAccountTokenFile(tokenFile));
  return {
    kubeConfig: resolved,
    contextName: context.name,
    server,
    namespace: flags.namespace ?? context.namespace ?? 'default',
    namespaceExplicit: flags.namespace !== undefined,
    userName,
    requestTimeoutMs,
    // As kubectl: the flag turns compression off; it cannot turn on what the kubeconfig turned off.
    compression: flags.disableCompression !== true && !compressionOff.has(clusterName),
    source,
    ...(tokenFile ? { credentialsTtlMs: TOKEN_REREAD_MS } : {}),
  };
}

function validateServer(server: string): void {
  if (!server) throw new UsageError('no API server address: the cluster entry has no server and --server was not given');
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new UsageError(`API server address "${server}" is not a URL`, { hint: 'expected something like https://127.0.0.1:6443' });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`API server address "${server}" must use https:// or http://`);
  }
}

export function parseRequestTimeout(value: string | undefined): number {
  if (value === undefined || value === '' || value === '0') return 0;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  try {
    return parseDuration(value);
  } catch {
    throw new UsageError(`invalid --request-timeout "${value}"`, { hint: 'use a duration such as 30s, 1m or 0 for none' });
  }
}

/** Where a pod's service account credentials are mounted. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
/**
 * Names another folder holding `token`, `ca.crt` and `namespace` (a test, or a token mounted
 * elsewhere); the in-cluster configuration reads them from there instead.
 */
export const SERVICE_ACCOUNT_DIR_ENV = 'INFORMER_TRACE_SERVICEACCOUNT_DIR';
/** client-go re-reads the token file when its cached copy is older than a minute. */
export const TOKEN_REREAD_MS = 60_000;
const SERVICE_ACCOUNT_AUTH_PROVIDER = 'informer-trace-serviceaccount';

export interface InClusterConfig {
  server: string;
  tokenFile: string;
  /** Absent when the CA file cannot be read: the system's roots are used, as client-go does. */
  caFile: string | undefined;
  /** $POD_NAMESPACE, else the mounted namespace file, else "default" (clientcmd's order). */
  namespace: string;
}

/**
 * rest.InClusterConfig: https://KUBERNETES_SERVICE_HOST:KUBERNETES_SERVICE_PORT with the mounted
 * service account token and CA. Both variables must be set and the token readable.
 */
export function inClusterConfig(env: NodeJS.ProcessEnv = process.env): InClusterConfig {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) {
    throw new UsageError('unable to load in-cluster configuration: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must both be set', {
      hint: 'outside a pod, pass --kubeconfig or set KUBECONFIG',
    });
  }
  const dir = env[SERVICE_ACCOUNT_DIR_ENV] || SERVICE_ACCOUNT_DIR;
  const tokenFile = join(dir, 'token');
  readToken(tokenFile);
  const caFile = join(dir, 'ca.crt');
  let namespace = env.POD_NAMESPACE?.trim() || '';
  if (!namespace) {
    try {
      namespace = readFileSync(join(dir, 'namespace'), 'utf8').trim();
    } catch {
      // No namespace file: "default", as clientcmd says.
    }
  }
  return {
    server: `https://${isIPv6(host) ? `[${host}]` : host}:${port}`,
    tokenFile,
    caFile: existsSync(caFile) ? caFile : undefined,
    namespace: namespace || 'default',
  };
}

function readToken(file: string): string {
  let token: string;
  try {
    token = readFileSync(file, 'utf8').trim();
  } catch (err) {
    throw new UsageError(
      `unable to load in-cluster configuration: cannot read the service account token ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      {
        hint: `mount the service account token (automountServiceAccountToken), or set ${SERVICE_ACCOUNT_DIR_ENV} to the folder that holds it`,
        cause: err,
      },
    );
  }
  if (!token) throw new UsageError(`unable to load in-cluster configuration: the service account token ${file} is empty`);
  return token;
}

/**
 * The bearer token from the service account's token file, read each time credentials are
 * prepared (at most once a TOKEN_REREAD_MS, and after a 401): the kubelet rotates the file. While
 * the file is briefly unreadable during a rotation the last token is kept.
 */
class ServiceAccountTokenFile {
  private last = '';
  constructor(private readonly file: string) {}

  isAuthProvider(user: User): boolean {
    return (user.authProvider as { name?: string } | undefined)?.name === SERVICE_ACCOUNT_AUTH_PROVIDER;
  }

  async applyAuthentication(_user: User, opts: { headers?: Record<string, unknown> }): Promise<void> {
    try {
      this.last = readToken(this.file);
    } catch (err) {
      if (!this.last) throw err;
    }
    opts.headers ??= {};
    opts.headers.Authorization = `Bearer ${this.last}`;
  }
}
