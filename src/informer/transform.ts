/**
 * Transforms for informers. `stripManagedFields` is client-go's TransformStripManagedFields
 * (tools/cache) and the informer's default here; `metadataOnly` turns full objects into what a
 * metadata-only informer (client-go metadatainformer, PartialObjectMetadata) would hold.
 *
 * Both are idempotent, as transforms must be: a streaming list passes its objects through the
 * transform twice (temporary store, then the DeltaFIFO), as in client-go, and so does a list (as
 * each item is decoded, then the DeltaFIFO).
 */
import type { KubeObject } from '../kube/types.js';
import type { TransformFunc } from './store.js';

/**
 * Drops metadata.managedFields, in place: sets it to undefined, as client-go sets it to nil
 * (JSON and YAML output leave it out). Deleting the property instead would turn every cached
 * object's metadata into a slower dictionary-mode object in V8. Other fields are untouched.
 */
export const stripManagedFields: TransformFunc = (obj) => {
  const meta = obj?.metadata;
  if (meta && typeof meta === 'object' && meta.managedFields !== undefined) meta.managedFields = undefined;
  return obj;
};

/**
 * A new object with only apiVersion, kind and metadata (managedFields dropped). Pair it with a
 * ListerWatcher that asks the server for metadata (PartialObjectMetadata) to save the bandwidth
 * too; on its own it saves the memory. The informer tool uses it for Secrets.
 */
export const metadataOnly: TransformFunc = (obj) => {
  const meta = obj?.metadata;
  if (!meta || typeof meta !== 'object') return obj;
  const { managedFields: _dropped, ...rest } = meta;
  const out: KubeObject = { metadata: rest };
  if (obj.apiVersion !== undefined) out.apiVersion = obj.apiVersion;
  if (obj.kind !== undefined) out.kind = obj.kind;
  return out;
};

/** kubectl apply's copy of the whole object it applied, data included. */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * Drops the `kubectl.kubernetes.io/last-applied-configuration` annotation, in place. A Secret made
 * with `kubectl apply` carries its whole manifest there, data included, so metadata-only is not
 * enough to keep Secret data out of a cache: pair this with `metadataOnly` for Secrets.
 */
export const dropLastAppliedConfiguration: TransformFunc = (obj) => {
  const annotations = obj?.metadata?.annotations;
  if (annotations && Object.hasOwn(annotations, LAST_APPLIED_ANNOTATION)) {
    delete annotations[LAST_APPLIED_ANNOTATION];
    if (Object.keys(annotations).length === 0) delete obj.metadata.annotations;
  }
  return obj;
};

/** Applies transforms left to right. */
export function chainTransforms(...fns: TransformFunc[]): TransformFunc {
  const chained: TransformFunc = (obj) => {
    let o = obj;
    for (const fn of fns) o = fn(o);
    return o;
  };
  const drops = fns.map(droppedFields);
  if (drops.includes('managedFields')) DROPPED.set(chained, 'managedFields');
  else if (drops.includes('managedFieldSets')) DROPPED.set(chained, 'managedFieldSets');
  return chained;
}

/**
 * What a transform removes from every object, whatever it is given: all of metadata.managedFields,
 * or only their field sets (fieldsV1). A decoder that can skip a field by its length (protobuf)
 * then leaves it unread.
 */
export type DroppedFields = 'managedFields' | 'managedFieldSets';

const DROPPED = new WeakMap<TransformFunc, DroppedFields>([
  [stripManagedFields, 'managedFields'],
  [metadataOnly, 'managedFields'],
]);

/** Declares what `fn` removes (see DroppedFields); returns it. */
export function declareDropped(fn: TransformFunc, what: DroppedFields): TransformFunc {
  DROPPED.set(fn, what);
  return fn;
}

/** What a transform removes from every object, if it was declared or is one of the above. */
export function droppedFields(fn: TransformFunc | undefined): DroppedFields | undefined {
  return fn === undefined ? undefined : DROPPED.get(fn);
}
