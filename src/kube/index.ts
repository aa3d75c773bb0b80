/**
 * src/kube: the only folder that talks to the API server or imports @kubernetes/client-node.
 *
 * - Connection: kubectl's flags and kubeconfig merging, in-cluster config.
 * - KubeClient: requests with the kubeconfig's credentials; errors are ApiError with code, reason,
 *   the refused request (verb, resource, namespace) and network codes. Its one request path
 *   (http.ts) also serves httpGet, the plain GET for endpoints reached directly (a /metrics).
 * - Discovery: kubectl-style resource names to GVRs, CRDs included; the answer kept on disk for
 *   six hours, as kubectl keeps its own.
 * - ResourceListerWatcher: list (paginated by the caller) and watch (a stream with back-pressure)
 *   for any resource, metadata-only on request; built-in kinds in protobuf (src/kube/protobuf,
 *   decoded into the objects the server's JSON gives), everything else in JSON.
 * - ApiLeaseClient: Leases with optimistic concurrency.
 * - toCliError: ApiError to the message a user reads (403 names verb, resource and namespace).
 */
export * from './types.js';
export * from './api-error.js';
export {
  loadConnection,
  hasConfiguredCluster,
  kubeconfigFiles,
  parseRequestTimeout,
  inClusterConfig,
  SERVICE_ACCOUNT_DIR_ENV,
  type Connection,
  type ConnectionFlags,
  type InClusterConfig,
} from './config.js';
export { KubeClient, errorFromResponse, type RequestInit, type RawResponse } from './client.js';
export {
  ConnectionStalledError,
  httpGet,
  isAbortError,
  isConnectionStalled,
  isTlsErrorCode,
  type HttpGet,
  type HttpGetRequest,
  type HttpGetResponse,
  type TlsOptions,
} from './http.js';
export { Discovery, matchResource } from './discovery.js';
export {
  CACHE_DIR_ENV,
  DISCOVERY_TTL_MS,
  DiskDiscoveryStore,
  discoveryFile,
  discoveryStoreFor,
  kubectlDiscoveryDir,
  type DiscoveryStore,
} from './discovery-cache.js';
export { ResourceListerWatcher, resourcePath, type ListerWatcherOptions } from './lister-watcher.js';
export { ApiLeaseClient, LEASES, leaseCandidateResource } from './lease-client.js';
export { toCliError, type ErrorContext } from './cli-errors.js';
export { kubeconfigHttpsCredentials, type HttpsCredentials } from './https-credentials.js';

import { loadConnection, type Connection, type ConnectionFlags } from './config.js';
import { KubeClient } from './client.js';
import { HTTP2_ENV } from './http2.js';
import { Discovery } from './discovery.js';
import { discoveryStoreFor } from './discovery-cache.js';

export interface Kube {
  connection: Connection;
  client: KubeClient;
  discovery: Discovery;
}

/** Everything a command needs to talk to the cluster, from the connection flags. */
export function connect(flags: ConnectionFlags): Kube {
  const connection = loadConnection(flags);
  const client = new KubeClient(
    connection.kubeConfig,
    connection.requestTimeoutMs,
    connection.userName,
    connection.credentialsTtlMs ?? 0,
    connection.compression,
    undefined,
    process.env[HTTP2_ENV] === '1',
  );
  return { connection, client, discovery: new Discovery(client, discoveryStoreFor(connection.server)) };
}
export { ObjectWriter } from './writer.js';
export { namespaceExists } from './namespaces.js';
