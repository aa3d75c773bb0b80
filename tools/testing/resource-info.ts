/**
 * A ResourceInfo as discovery would give it for a namespaced kind served at v1 that can be listed
 * and watched; `o` changes any field (verbs, namespaced, version).
 */
import type { ResourceInfo } from '../../src/kube/index.js';

export function resourceInfo(group: string, resource: string, kind: string, o: Partial<ResourceInfo> = {}): ResourceInfo {
  return {
    group,
    version: 'v1',
    resource,
    kind,
    namespaced: true,
    shortNames: [],
    singularName: kind.toLowerCase(),
    verbs: ['list', 'watch'],
    ...o,
  };
}
