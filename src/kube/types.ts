/**
 * The plain shapes and interfaces the rest of the tool sees of the Kubernetes API. Nothing here
 * imports @kubernetes/client-node: src/kube/ implements these interfaces over it, and tools/testing/
 * has fakes of them.
 */

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  subresource?: string;
  fieldsV1?: unknown;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: ManagedFieldsEntry[];
}

/** Any API object. Fields beyond metadata are read through field paths or kind-specific views. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

declare const deferred: unique symbol;

/**
 * An object whose `spec` and `status` may still be waiting as bytes, decoded on their first read:
 * what a protobuf LIST gives (ListResult.items; src/kube/protobuf/decode.ts, lazyField). Watch
 * events, JSON and nested objects are never deferred. The contract for code that holds one:
 * - Reading a field, spreading, JSON.stringify, structuredClone, deep equality and assignment act
 *   as on the eager decoder's object; the first read of `spec` or `status` turns that field into a
 *   plain data property, once, and every store, index, transform and diff may read it.
 * - Until then, and only then, Object.getOwnPropertyDescriptor shows an accessor.
 * - A frozen or sealed object decodes the field on each read instead of keeping it.
 * - The first read throws ProtobufDecodeError when the server's bytes for the field do not parse,
 *   where an eager decode would have refused the List: a conforming server never sends such bytes.
 * Every KubeObject reader accepts one; the type marks where they come from.
 */
export type Deferred<T extends KubeObject = KubeObject> = T & { readonly [deferred]?: true };

/** metav1.Status, as sent in ERROR watch events and error responses. */
export interface Status {
  apiVersion?: string;
  kind: 'Status';
  status?: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  code?: number;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    causes?: { reason?: string; message?: string; field?: string }[];
    retryAfterSeconds?: number;
  };
  metadata?: { resourceVersion?: string };
}

export interface Selectors {
  labelSelector?: string;
  fieldSelector?: string;
}

export interface ListOptions extends Selectors {
  resourceVersion?: string;
  resourceVersionMatch?: 'NotOlderThan' | 'Exact';
  limit?: number;
  continue?: string;
}

export interface ListResult {
  /** Deferred: a protobuf List's objects keep spec and status for their first read. */
  items: Deferred[];
  /** The list's resourceVersion (metadata.resourceVersion of the List). */
  resourceVersion: string;
  /** Continue token, empty or absent on the last page. */
  continue?: string;
  remainingItemCount?: number;
  /** What the API server answered in, when the ListerWatcher knows. */
  encoding?: Encoding;
}

/** What an answer of the API server came in. */
export type Encoding = 'json' | 'protobuf';

export interface WatchOptions extends Selectors {
  resourceVersion?: string;
  resourceVersionMatch?: 'NotOlderThan' | 'Exact';
  timeoutSeconds?: number;
  allowWatchBookmarks?: boolean;
  sendInitialEvents?: boolean;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent {
  type: WatchEventType;
  /** The object; a Status for ERROR events. */
  object: KubeObject;
}

/**
 * One open watch. Iterating yields events until the server closes the stream (the iteration ends
 * normally) or the connection fails (the iterator throws). stop() ends the iteration from our side.
 */
export interface Watch extends AsyncIterable<WatchEvent> {
  stop(): void;
  /**
   * Optional: `listener` runs whenever bytes of the stream arrive, before they make up a whole
   * event, so a reader that judges the stream's silence sees a large event coming in.
   */
  onProgress?(listener: () => void): void;
}

/** How list items are decoded. */
export interface ListDecodeOptions {
  /**
   * Applied to every item as soon as it is decoded, while the rest of the list is still arriving,
   * so that what it drops is never held for the whole list. The informer passes its transform
   * (which it applies again when the items reach its store: transforms are idempotent).
   */
  transform?: ((obj: KubeObject) => KubeObject) | undefined;
  /**
   * The transform drops metadata.managedFields: a decoder that can skip a field without reading
   * it (protobuf) leaves it out. Lists and watches both take it.
   */
  skipManagedFields?: boolean | undefined;
  /** The transform drops the field sets of metadata.managedFields (fieldsV1): left unread likewise. */
  skipManagedFieldSets?: boolean | undefined;
}

/** List and watch one resource (one GVR in one namespace or all, with selectors). */
export interface ListerWatcher {
  list(options: ListOptions, signal?: AbortSignal, decode?: ListDecodeOptions): Promise<ListResult>;
  watch(options: WatchOptions, signal?: AbortSignal, decode?: ListDecodeOptions): Promise<Watch>;
  /** Human name for logs and stats, e.g. "deployments.apps in demo". */
  readonly description: string;
  /** The resource listed and watched, when there is one (informer metrics carry its group, version, resource). */
  readonly resource?: ResourceInfo;
}

/** A resolved resource: what discovery said of a kubectl-style name. */
export interface ResourceInfo {
  group: string;
  version: string;
  /** Plural resource name, e.g. "deployments". */
  resource: string;
  kind: string;
  namespaced: boolean;
  shortNames: string[];
  singularName: string;
  verbs: string[];
  categories?: string[];
}

/** An API group and kind, as per-kind knowledge is keyed: the core group is ''. */
export interface GroupKind {
  group: string;
  kind: string;
}

/** The key of a table of per-kind knowledge, as kstatus keys its own: `apps/Deployment`, core `/Pod`. */
export function groupKindKey(gk: GroupKind): string {
  return `${gk.group}/${gk.kind}`;
}

/** "deployments.apps", "pods" (core), as kubectl prints a group resource. */
export function groupResource(r: Pick<ResourceInfo, 'group' | 'resource'>): string {
  return r.group ? `${r.resource}.${r.group}` : r.resource;
}

/** "deployment.apps/web", "pod/web-1" (core): an object's name as `kubectl get -o name` prints it. */
export function kindSlashName(r: Pick<ResourceInfo, 'group' | 'kind'>, name: string): string {
  return `${(r.group ? `${r.kind}.${r.group}` : r.kind).toLowerCase()}/${name}`;
}

export function apiVersionOf(r: Pick<ResourceInfo, 'group' | 'version'>): string {
  return r.group ? `${r.group}/${r.version}` : r.version;
}

/** coordination.k8s.io/v1 Lease, the fields leader election uses. */
export interface LeaseSpec {
  holderIdentity?: string | null;
  leaseDurationSeconds?: number | null;
  acquireTime?: string | null;
  renewTime?: string | null;
  leaseTransitions?: number | null;
  strategy?: string | null;
  preferredHolder?: string | null;
}

export interface Lease extends KubeObject {
  spec?: LeaseSpec;
}

/**
 * coordination.k8s.io LeaseCandidate (v1beta1 since Kubernetes 1.33, v1alpha2 in 1.32): a process
 * that stands for the Lease `leaseName` in its namespace under coordinated leader election
 * (KEP-4355). Its name is the identity the election controller writes as the Lease's holder.
 */
export interface LeaseCandidateSpec {
  leaseName?: string | null;
  binaryVersion?: string | null;
  emulationVersion?: string | null;
  /** Set by the API server's election controller to ask the candidate to answer (renew). */
  pingTime?: string | null;
  /** Written by the candidate: at start, when pinged, and now and then. */
  renewTime?: string | null;
  strategy?: string | null;
  /** v1alpha1 (Kubernetes 1.31) named the strategies a candidate accepts instead. */
  preferredStrategies?: string[] | null;
}

export interface LeaseCandidate extends KubeObject {
  spec?: LeaseCandidateSpec;
}

/** Reads and writes Leases with optimistic concurrency (resourceVersion). */
export interface LeaseClient {
  /** Resolves undefined when the Lease does not exist. */
  get(namespace: string, name: string, signal?: AbortSignal): Promise<Lease | undefined>;
  /** Rejects with an ApiError of code 409 (AlreadyExists) when it exists. */
  create(lease: Lease, signal?: AbortSignal): Promise<Lease>;
  /** Rejects with an ApiError of code 409 (Conflict) when resourceVersion is stale. */
  update(lease: Lease, signal?: AbortSignal): Promise<Lease>;
}
