/**
 * ListerWatcher for any resource the discovery layer resolved: core or grouped, namespaced or
 * cluster-scoped, CRDs included, with label and field selectors. In metadata-only mode the server
 * sends PartialObjectMetadata, so only metadata crosses the wire.
 *
 * Built-in kinds are asked for in protobuf, as client-go's informers in controllers ask for them:
 * the API server encodes it in about half the time of JSON and it is smaller on the wire, and the
 * decoder (src/kube/protobuf) skips what the informer's transform drops. The objects are the
 * same as JSON's. CRDs, aggregated APIs and kinds the table does not know stay JSON; the Accept
 * header offers JSON second, and the answer's Content-Type picks the decoder.
 *
 * A watch's signal may abort with a ConnectionStalledError (its reader saw the stream go silent
 * past the server's promised end): the request and its socket are destroyed, and the client's idle
 * pooled connections closed, so the next watch goes out on a new connection.
 */
import { ApiError } from './api-error.js';
import { isProtobuf, PROTOBUF, type KubeClient } from './client.js';
import { isConnectionStalled } from './http.js';
import type { DecodeOptions } from './protobuf/decode.js';
import { hasProtobufForm } from './protobuf/schema.js';
import { ProtobufWatchDecoder } from './protobuf/stream.js';
import { WatchStream } from './watch-stream.js';
import {
  apiVersionOf,
  groupResource,
  type Deferred,
  type Encoding,
  type KubeObject,
  type ListDecodeOptions,
  type ListOptions,
  type ListResult,
  type ListerWatcher,
  type ResourceInfo,
  type Selectors,
  type Watch,
  type WatchOptions,
} from './types.js';

export interface ListerWatcherOptions extends Selectors {
  /** Namespace to list in; undefined or "" means all namespaces (or a cluster-scoped resource). */
  namespace?: string | undefined;
  /** Ask for PartialObjectMetadata instead of whole objects. */
  metadataOnly?: boolean;
  /** `json` to never ask for protobuf; `auto` (the default) asks for it for the built-in kinds. */
  encoding?: 'auto' | 'json';
  /**
   * Leave the spec and status of a protobuf List's objects undecoded until first read (the
   * default): for a program that reads few of many objects, as the tracer does. One that reads
   * every object anyway (`cache` prints them all and indexes spec.nodeName) passes false and
   * decodes them at once, which costs less than decoding each on its first read.
   */
  deferSpecStatus?: boolean;
}

const metadataListAccept = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
const metadataAccept = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';
const protobufAccept = `${PROTOBUF},application/json`;

export function resourcePath(r: ResourceInfo, namespace?: string, name?: string): string {
  const prefix = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  const ns = r.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${prefix}${ns}/${r.resource}${name ? `/${encodeURIComponent(name)}` : ''}`;
}

export class ResourceListerWatcher implements ListerWatcher {
  readonly description: string;
  private readonly path: string;
  private readonly namespace: string | undefined;
  private readonly accept: string | undefined;

  constructor(
    private readonly client: KubeClient,
    readonly resource: ResourceInfo,
    private readonly options: ListerWatcherOptions = {},
  ) {
    this.namespace = resource.namespaced && options.namespace ? options.namespace : undefined;
    this.path = resourcePath(resource, this.namespace);
    const where = resource.namespaced ? (this.namespace ? ` in ${this.namespace}` : ' in all namespaces') : '';
    const sel = [options.labelSelector && `-l ${options.labelSelector}`, options.fieldSelector && `--field-selector ${options.fieldSelector}`]
      .filter(Boolean)
      .join(' ');
    this.description = `${groupResource(resource)}${where}${sel ? ` (${sel})` : ''}`;
    if (options.metadataOnly) this.accept = metadataListAccept;
    else if (options.encoding !== 'json' && hasProtobufForm(apiVersionOf(resource), resource.kind)) this.accept = protobufAccept;
  }

  /** Whether requests offer protobuf (the server may still answer JSON). */
  get offersProtobuf(): boolean {
    return this.accept === protobufAccept;
  }

  async list(opts: ListOptions, signal?: AbortSignal, decode?: ListDecodeOptions): Promise<ListResult> {
    // Items of a List carry no kind or apiVersion; give them the ones client-go's decoder would.
    const kind = this.options.metadataOnly ? 'PartialObjectMetadata' : this.resource.kind;
    const apiVersion = this.options.metadataOnly ? 'meta.k8s.io/v1' : apiVersionOf(this.resource);
    const transform = decode?.transform;
    const items: Deferred[] = [];
    const { list, encoding } = (await this.client.streamList(
      this.path,
      {
        query: {
          resourceVersion: opts.resourceVersion,
          resourceVersionMatch: opts.resourceVersionMatch,
          limit: opts.limit,
          continue: opts.continue,
          labelSelector: opts.labelSelector ?? this.options.labelSelector,
          fieldSelector: opts.fieldSelector ?? this.options.fieldSelector,
        },
        ...(this.accept ? { accept: this.accept } : {}),
        signal,
        describe: { verb: 'list', resource: groupResource(this.resource), namespace: this.namespace },
      },
      (decoded) => {
        const item = decoded as KubeObject;
        item.kind ??= kind;
        item.apiVersion ??= apiVersion;
        items.push(transform ? transform(item) : item);
      },
      // A List's objects keep spec and status undecoded until they are read: a store holds them
      // all, a program reads a few (decode.ts, lazyField).
      { ...protobufDecodeOptions(decode), lazySpecStatus: this.options.deferSpecStatus !== false },
    )) as { list: { metadata?: { resourceVersion?: string; continue?: string; remainingItemCount?: number } }; encoding: Encoding };
    return {
      items,
      resourceVersion: list.metadata?.resourceVersion ?? '',
      ...(list.metadata?.continue ? { continue: list.metadata.continue } : {}),
      ...(list.metadata?.remainingItemCount !== undefined ? { remainingItemCount: list.metadata.remainingItemCount } : {}),
      encoding,
    };
  }

  async watch(opts: WatchOptions, signal?: AbortSignal, decode?: ListDecodeOptions): Promise<Watch> {
    const describe = { verb: 'watch', resource: groupResource(this.resource), namespace: this.namespace };
    signal?.addEventListener(
      'abort',
      () => {
        if (isConnectionStalled(signal.reason)) this.client.dropIdleConnections();
      },
      { once: true },
    );
    const res = await this.client.openOk(this.path, {
      query: {
        watch: 'true',
        resourceVersion: opts.resourceVersion,
        resourceVersionMatch: opts.resourceVersionMatch,
        timeoutSeconds: opts.timeoutSeconds,
        allowWatchBookmarks: opts.allowWatchBookmarks ? 'true' : undefined,
        sendInitialEvents: opts.sendInitialEvents === undefined ? undefined : String(opts.sendInitialEvents),
        labelSelector: opts.labelSelector ?? this.options.labelSelector,
        fieldSelector: opts.fieldSelector ?? this.options.fieldSelector,
      },
      ...(this.options.metadataOnly ? { accept: metadataAccept } : this.accept ? { accept: this.accept } : {}),
      signal,
      // A watch is long by design: --request-timeout does not bound it, and the idle timeout
      // covers only its opening; the reader judges the stream's silence.
      timeoutMs: 0,
      stream: true,
      describe,
    });
    const status = res.statusCode ?? 0;
    if (isProtobuf(res)) return new WatchStream(res, this.description, new ProtobufWatchDecoder(protobufDecodeOptions(decode)));
    if (!res.headers['content-type']?.includes('json')) {
      res.destroy();
      throw new ApiError(`watch of ${this.description} answered ${res.headers['content-type'] ?? 'no content type'}, not JSON or protobuf`, {
        code: status,
        request: describe,
      });
    }
    return new WatchStream(res, this.description);
  }
}

/** What the protobuf decoder may leave unread, from what the informer's transform drops. */
export function protobufDecodeOptions(decode: ListDecodeOptions | undefined): DecodeOptions {
  return { skipManagedFields: decode?.skipManagedFields === true, skipManagedFieldSets: decode?.skipManagedFieldSets === true };
}
