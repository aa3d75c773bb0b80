/**
 * Built-in index functions. `metaNamespaceIndexFunc`/`NamespaceIndex` mirror client-go
 * tools/cache/index.go; the owner and node indices are the ones controllers usually write
 * themselves (kube-controller-manager's controller-ref lookups, the kubelet's pods-by-node), and the
 * field-path index lets a CLI user name any field.
 *
 * Deliberate differences: `nodeNameIndexFunc` yields nothing (not "") for an unscheduled pod;
 * `fieldPathIndexFunc` parses its path when it is created and throws there, not at indexing time.
 */
import type { KubeObject } from '../kube/types.js';
import { parseFieldPath } from './field-path.js';
import type { IndexFunc } from './thread-safe-store.js';

export const NamespaceIndex = 'namespace';
export const ControllerUIDIndex = 'controllerUID';
export const OwnerUIDIndex = 'ownerUID';
export const NodeNameIndex = 'spec.nodeName';

/** [namespace] ("" for cluster-scoped objects). Throws without metadata. */
export const metaNamespaceIndexFunc: IndexFunc = (obj) => {
  const meta = obj?.metadata;
  if (typeof meta !== 'object' || meta === null) throw new Error('object has no meta');
  return [meta.namespace ?? ''];
};

/** The UID of the owner reference marked controller: true, if any. */
export const controllerUIDIndexFunc: IndexFunc = (obj) => {
  const refs = obj.metadata?.ownerReferences;
  if (!refs) return [];
  for (const ref of refs) if (ref.controller === true && ref.uid) return [ref.uid];
  return [];
};

/** The UID of every owner reference. */
export const ownerUIDIndexFunc: IndexFunc = (obj) => {
  const refs = obj.metadata?.ownerReferences;
  if (!refs || refs.length === 0) return [];
  const out: string[] = [];
  for (const ref of refs) if (ref.uid && !out.includes(ref.uid)) out.push(ref.uid);
  return out;
};

/** spec.nodeName of a pod; nothing while unscheduled. */
export const nodeNameIndexFunc: IndexFunc = (obj: KubeObject) => {
  const spec = obj.spec as { nodeName?: unknown } | undefined;
  const node = spec?.nodeName;
  return typeof node === 'string' && node !== '' ? [node] : [];
};

/** Indexes by the values at a field path (see field-path.ts). Throws now if the path is invalid. */
export function fieldPathIndexFunc(path: string): IndexFunc {
  const fp = parseFieldPath(path);
  return (obj) => fp.evaluate(obj);
}
