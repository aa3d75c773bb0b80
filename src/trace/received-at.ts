/**
 * Stamps each object with the time our informer received it, as the informer's transform (which
 * runs once per object when its delta is queued). The cache then carries the receive time of every
 * version it holds, so a reconciler reading the cache knows when that version arrived without
 * looking at event payloads. A symbol key: never serialised, never sent anywhere.
 */
import type { Clock } from '../clock.js';
import type { KubeObject } from '../kube/index.js';
import { declareDropped, type TransformFunc } from '../informer/index.js';

const receivedAtKey: unique symbol = Symbol('receivedAt');

type Stamped = KubeObject & { [receivedAtKey]?: number };

export function stampReceivedAt(clock: Clock): TransformFunc {
  return (obj) => {
    const o = obj as Stamped;
    if (o && typeof o === 'object' && o[receivedAtKey] === undefined) o[receivedAtKey] = clock.now();
    return obj;
  };
}

export function receivedAt(obj: KubeObject): number | undefined {
  return (obj as Stamped)[receivedAtKey];
}

/**
 * Keeps only what the trace reads of managedFields (manager, operation, subresource, time): the
 * server-side write times, without the field sets, which are most of an object's bytes.
 */
export const slimManagedFields: TransformFunc = declareDropped((obj) => {
  const mf = obj?.metadata?.managedFields;
  if (Array.isArray(mf)) {
    obj.metadata.managedFields = mf.map((m) => ({
      ...(m.manager !== undefined ? { manager: m.manager } : {}),
      ...(m.operation !== undefined ? { operation: m.operation } : {}),
      ...(m.subresource !== undefined ? { subresource: m.subresource } : {}),
      ...(m.time !== undefined ? { time: m.time } : {}),
    }));
  }
  return obj;
}, 'managedFieldSets');
