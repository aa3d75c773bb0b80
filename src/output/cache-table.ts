/**
 * `kubectl informer-trace cache` printed once: the cache as a table (namespace, name,
 * resourceVersion, age) followed by a table per custom index, as kind/name lines (-o name), or as
 * the List that -o json and -o yaml print. The table and the names are escaped: names and index
 * values are the cluster's; the List holds them exactly.
 */
import { kindSlashName, type KubeObject, type ResourceInfo } from '../kube/index.js';
import { escapeTerminal } from '../util/escape.js';
import { age } from '../util/duration.js';
import { renderTable } from './table.js';

/** Each custom index's values and the keys under each. */
export type IndexValues = Record<string, Record<string, string[]>>;

/** An object's key in the cache: namespace/name, or name. */
export function cacheKey(o: KubeObject): string {
  return o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : (o.metadata.name ?? '');
}

/** What -o json and -o yaml print: the cache as a List, with the values of its custom indexes. */
export function cacheList(items: KubeObject[], indexes: IndexValues, rv: string, keysOnly: boolean): { items: unknown[] } & Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'List',
    metadata: { resourceVersion: rv },
    items: keysOnly ? items.map((o) => ({ key: cacheKey(o), resourceVersion: o.metadata.resourceVersion ?? '' })) : items,
    ...(Object.keys(indexes).length ? { indexes } : {}),
  };
}

/** -o name: kind/name lines, as kubectl get -o name prints them. */
export function renderCacheNames(items: KubeObject[], info: ResourceInfo): string {
  return items.map((o) => `${escapeTerminal(kindSlashName(info, o.metadata.name ?? ''))}\n`).join('');
}

/** -o table: the objects, then a table per custom index. */
export function renderCacheTable(items: KubeObject[], indexes: IndexValues, info: ResourceInfo, keysOnly: boolean): string {
  const { namespaced } = info;
  const now = Date.now();
  const head = [...(namespaced ? ['namespace'] : []), 'name', 'resourceversion', ...(keysOnly ? [] : ['age'])];
  const rows = items.map((o) => [
    ...(namespaced ? [o.metadata.namespace ?? ''] : []),
    o.metadata.name ?? '',
    o.metadata.resourceVersion ?? '',
    ...(keysOnly ? [] : [age(o.metadata.creationTimestamp, now)]),
  ]);
  let out = items.length ? `${renderTable(head, rows)}\n` : '';
  for (const [name, values] of Object.entries(indexes)) {
    out += `\n${renderTable(
      [`index ${name}`, 'keys'],
      Object.entries(values).map(([v, keys]) => [v, keys.length > 5 ? `${keys.slice(0, 5).join(', ')} (+${keys.length - 5})` : keys.join(', ')]),
    )}\n`;
  }
  return out;
}
