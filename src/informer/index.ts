/**
 * src/informer: client-go's informer machinery (tools/cache), in TypeScript.
 *
 * Contract:
 * - Complete: run(signal) never gives up and never stops silently. Every failure is retried (re-watch
 *   or relist, with client-go's backoff) and reported to the watchErrorHandler, the stats and the
 *   event hook. Only a signal stops it: run()'s, or the one its options give.
 * - Faithful: list/watch resourceVersion choices, pagination, 410/429/500 handling, DeltaFIFO
 *   merging, resync and handler semantics are client-go's (docs/design/clientgo-semantics.md
 *   §1–4, with every deliberate difference); each file header lists its own.
 * - Cache first: the Indexer is updated before any handler hears of a change, so a handler (or a
 *   worker it enqueues for) that reads the cache sees at least that state.
 * - Ordered and fair: each handler gets its notifications in order, one at a time (async handlers
 *   are awaited), from its own unbounded buffer; a slow handler delays only itself; nothing is
 *   dropped until the handler is removed or the informer stops.
 * - Traceable: every Delta and every notification carries the clock time it was received and its
 *   delta/watch event type.
 * - Testable: time comes from an injected Clock and randomness from an injected source; nothing
 *   here sleeps on real time or reads the network except through a ListerWatcher.
 *
 * Not exported: SharedInformerFactory (shared-informer-factory.ts). The plugins start their few
 * informers directly, so it is built for its tests only and kept out of dist/
 * (docs/design/clientgo-semantics.md §7).
 */
export {
  DeletedFinalStateUnknown,
  deletionHandlingMetaNamespaceKeyFunc,
  isDeletedFinalStateUnknown,
  KeyError,
  metaNamespaceKeyFunc,
  newIndexer,
  newStore,
  splitMetaNamespaceKey,
} from './store.js';
export type { DeltaInfo, Indexer, KeyFunc, KeyListerGetter, ReflectorStore, Store, StoreOptions, TransformFunc } from './store.js';

export { newThreadSafeStore } from './thread-safe-store.js';
export type { Index, IndexFunc, Indexers, Indices, ThreadSafeStore } from './thread-safe-store.js';

export {
  ControllerUIDIndex,
  controllerUIDIndexFunc,
  fieldPathIndexFunc,
  metaNamespaceIndexFunc,
  NamespaceIndex,
  NodeNameIndex,
  nodeNameIndexFunc,
  OwnerUIDIndex,
  ownerUIDIndexFunc,
} from './index-funcs.js';
export { parseFieldPath } from './field-path.js';
export type { FieldPath, FieldPathStep } from './field-path.js';

export { dedupDeltas, DeltaFIFO, ErrFIFOClosed, FIFOClosedError, newestDelta } from './delta-fifo.js';
export type { Delta, DeltaFIFOOptions, Deltas, DeltaType, PopProcessFunc } from './delta-fifo.js';

export { BackoffManager, DEFAULT_REFLECTOR_BACKOFF, jitter } from './backoff.js';
export type { BackoffOptions } from './backoff.js';
export { DEFAULT_PAGE_SIZE, listAllPages } from './pager.js';
export { compareResourceVersions } from './resource-version.js';
export type { PagedListResult, PagerOptions } from './pager.js';
export {
  caughtUpWith,
  compareCache,
  listNow,
  verifyCache,
  type CacheDifference,
  type DifferenceKind,
  type ServerState,
  type VerifyOptions,
  type VerifyResult,
} from './verify-cache.js';

export {
  DEFAULT_MIN_WATCH_TIMEOUT_MS,
  INITIAL_EVENTS_END_ANNOTATION,
  isProbableEOF,
  isWatchErrorRetriable,
  Reflector,
} from './reflector.js';
export type { ReflectorAction, ReflectorOptions, ReflectorPhase, WatchErrorContext, WatchErrorHandler } from './reflector.js';

export { Notification, ProcessorListener } from './processor-listener.js';
export type { NotificationInfo, NotificationKind, ResourceEventHandler, SyncResourceEventHandler } from './processor-listener.js';
export { determineResyncPeriod, MINIMUM_RESYNC_PERIOD_MS, SharedProcessor } from './shared-processor.js';

export { SharedIndexInformer, SYNCED_POLL_PERIOD_MS, waitForCacheSync } from './shared-informer.js';
export type { DeltaObserver, HandlerOptions, ObservedDelta, ResourceEventHandlerRegistration, SharedIndexInformerOptions } from './shared-informer.js';
export { runUntilSynced, type SyncOptions } from './run-until-synced.js';

export {
  chainTransforms,
  declareDropped,
  droppedFields,
  dropLastAppliedConfiguration,
  LAST_APPLIED_ANNOTATION,
  metadataOnly,
  stripManagedFields,
  type DroppedFields,
} from './transform.js';

export {
  describeError,
  emptyLatencyHistogram,
  errorMessage,
  InformerEventHub,
  InformerStatsRecorder,
  observeLatency,
  PROCESSING_LATENCY_BUCKETS,
  storeResourceVersionValue,
} from './stats.js';
export type {
  ErrorRecord,
  EventCounts,
  LatencyHistogram,
  InformerEvent,
  InformerEventKind,
  InformerEventLevel,
  InformerEventListener,
  InformerStats,
  ListenerStats,
} from './stats.js';

export { RingGrowing } from './ring-buffer.js';
