/**
 * The API server's discovery documents and the resources they name: the aggregated list (one
 * document for the core group, one for the others) and the per-group-version documents of the
 * older discovery, which client-go's disk cache keeps too (src/kube/discovery-cache.ts).
 */
import type { ResourceInfo } from './types.js';

export interface AggregatedList {
  kind?: string;
  items?: {
    metadata?: { name?: string };
    versions?: {
      version: string;
      resources?: {
        resource: string;
        responseKind?: { group?: string; version?: string; kind?: string };
        scope?: string;
        singularResource?: string;
        shortNames?: string[];
        verbs?: string[];
        categories?: string[];
      }[];
    }[];
  }[];
}

export interface LegacyResourceList {
  groupVersion: string;
  resources: { name: string; singularName?: string; namespaced: boolean; kind: string; verbs: string[]; shortNames?: string[]; categories?: string[] }[];
}

export interface LegacyGroupList {
  groups: { name: string; preferredVersion?: { version: string }; versions: { version: string }[] }[];
}

export function fromAggregated(doc: AggregatedList, forcedGroup: string | undefined): ResourceInfo[] {
  const out: ResourceInfo[] = [];
  for (const g of doc.items ?? []) {
    const group = forcedGroup ?? g.metadata?.name ?? '';
    for (const v of g.versions ?? []) {
      for (const r of v.resources ?? []) {
        if (r.resource.includes('/')) continue;
        out.push({
          group,
          version: v.version,
          resource: r.resource,
          kind: r.responseKind?.kind ?? '',
          namespaced: r.scope === 'Namespaced',
          shortNames: r.shortNames ?? [],
          singularName: r.singularResource ?? '',
          verbs: r.verbs ?? [],
          ...(r.categories ? { categories: r.categories } : {}),
        });
      }
    }
  }
  return out;
}

export function fromLegacy(doc: LegacyResourceList, group: string, version: string): ResourceInfo[] {
  return doc.resources
    .filter((r) => !r.name.includes('/'))
    .map((r) => ({
      group,
      version,
      resource: r.name,
      kind: r.kind,
      namespaced: r.namespaced,
      shortNames: r.shortNames ?? [],
      singularName: r.singularName || r.kind.toLowerCase(),
      verbs: r.verbs,
      ...(r.categories ? { categories: r.categories } : {}),
    }));
}

/** A group's versions as discovery orders them: the preferred one first. */
export function versionsInOrder(g: LegacyGroupList['groups'][number]): string[] {
  const preferred = g.preferredVersion?.version ?? g.versions[0]?.version;
  return preferred === undefined ? [] : [preferred, ...g.versions.map((v) => v.version).filter((v) => v !== preferred)];
}
