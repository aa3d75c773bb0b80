/**
 * Resolves kubectl-style resource names ("deploy", "deployments.apps", "deployment.v1.apps",
 * "leases.coordination.k8s.io", a CRD's plural, singular, short name or kind) through the API
 * server's discovery documents. Aggregated discovery (one request for all groups) is used when the
 * server offers it, the per-group documents otherwise. An earlier run's answer, kept on disk, stands
 * in for the server's for six hours, as kubectl's does (src/kube/discovery-cache.ts).
 */
import { UsageError } from '../errors.js';
import { closest } from '../util/suggest.js';
import type { KubeClient } from './client.js';
import type { DiscoveryStore } from './discovery-cache.js';
import { fromAggregated, fromLegacy, versionsInOrder, type AggregatedList, type LegacyGroupList, type LegacyResourceList } from './discovery-docs.js';
import type { ResourceInfo } from './types.js';

const aggregatedAccept =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

export class Discovery {
  private all: Promise<ResourceInfo[]> | undefined;
  /** `all` while it is the kept answer of an earlier run (src/kube/discovery-cache.ts), not the server's. */
  private kept: Promise<ResourceInfo[]> | undefined;
  /** Set by invalidate(): the server is asked, whatever the store holds. */
  private storeStale = false;

  /** With a `store`, an earlier run's answer stands in for the server's while it is young. */
  constructor(
    private readonly client: KubeClient,
    private readonly store?: DiscoveryStore,
  ) {}

  /**
   * Every resource the server serves, preferred versions first within a group; core group first.
   * It may be an earlier run's kept answer: to wait for a kind defined since, use first() or served().
   */
  resources(): Promise<ResourceInfo[]> {
    if (!this.all) {
      const kept = this.storeStale ? undefined : this.store?.read();
      this.all = kept ? Promise.resolve(kept) : this.fetch();
      this.kept = kept ? this.all : undefined;
    }
    return this.all;
  }

  /**
   * Every resource as the server serves it now: a kept answer of an earlier run is replaced by
   * the server's first. For whoever looks through every kind (a trace's children), where a kind
   * defined since would be missed without a word.
   */
  served(): Promise<ResourceInfo[]> {
    if (this.all === undefined || this.all === this.kept) this.invalidate();
    return this.resources();
  }

  /** Forget what was discovered (after a CRD is created, for example): the server is asked next. */
  invalidate(): void {
    this.all = undefined;
    this.kept = undefined;
    this.storeStale = true;
  }

  /** The server's answer, kept in the store for the next run. */
  private fetch(): Promise<ResourceInfo[]> {
    return this.load().then(
      (all) => {
        this.store?.write(all);
        return all;
      },
      (err: unknown) => {
        this.all = undefined;
        throw err;
      },
    );
  }

  /**
   * The first of `pick` over the resources that is not undefined; when the answer is an earlier
   * run's and has none, the server's answer is asked for and tried too.
   */
  private async find<T>(pick: (all: ResourceInfo[]) => T | undefined): Promise<{ found: T | undefined; all: ResourceInfo[] }> {
    const first = this.resources();
    const wasKept = first === this.kept;
    let all = await first;
    let found = pick(all);
    if (found === undefined && wasKept) {
      // Once for all callers that missed in the same kept answer.
      if (this.all === first) this.invalidate();
      all = await this.resources();
      found = pick(all);
    }
    return { found, all };
  }

  private async load(): Promise<ResourceInfo[]> {
    const [core, groups] = await Promise.all([
      this.client.raw('/api', { accept: aggregatedAccept, describe: { verb: 'get', resource: '', path: '/api' } }),
      this.client.raw('/apis', { accept: aggregatedAccept, describe: { verb: 'get', resource: '', path: '/apis' } }),
    ]);
    const coreDoc = JSON.parse(core.body) as AggregatedList;
    const groupsDoc = JSON.parse(groups.body) as AggregatedList;
    if (coreDoc.kind === 'APIGroupDiscoveryList' && groupsDoc.kind === 'APIGroupDiscoveryList') {
      return [...fromAggregated(coreDoc, ''), ...fromAggregated(groupsDoc, undefined)];
    }
    return this.loadLegacy(groupsDoc as unknown as LegacyGroupList);
  }

  private async loadLegacy(groupList: LegacyGroupList): Promise<ResourceInfo[]> {
    const out: ResourceInfo[] = [];
    const coreList = await this.client.json<LegacyResourceList>('/api/v1');
    out.push(...fromLegacy(coreList, '', 'v1'));
    const docs = await Promise.all(
      groupList.groups.flatMap((g) =>
        versionsInOrder(g).map(async (v) => ({ g: g.name, v, doc: await this.client.json<LegacyResourceList>(`/apis/${g.name}/${v}`).catch(() => undefined) })),
      ),
    );
    for (const d of docs) if (d.doc) out.push(...fromLegacy(d.doc, d.g, d.v));
    return out;
  }

  /**
   * The first resource in discovery order that `matches`; when the answer is an earlier run's
   * and none does, the server's answer is asked for and searched too.
   */
  async first(matches: (r: ResourceInfo) => boolean): Promise<ResourceInfo | undefined> {
    return (await this.find((all) => all.find(matches))).found;
  }

  /**
   * Resolves a name as kubectl does. Throws a UsageError naming close matches when nothing fits.
   */
  async resolve(name: string): Promise<ResourceInfo> {
    const { found, all } = await this.find((all) => matchResource(all, name));
    if (found) return found;
    const candidates = all.flatMap((r) => [r.resource, r.singularName, ...r.shortNames, r.kind.toLowerCase()]).filter(Boolean);
    const near = closest(name.toLowerCase().split('.')[0] ?? name, [...new Set(candidates)], 3);
    throw new UsageError(`the server does not have a resource type "${name}"`, {
      hint: near.length
        ? `did you mean ${near.map((n) => `"${n}"`).join(', ')}? (kubectl api-resources lists them all)`
        : 'kubectl api-resources lists the resource types the server has',
    });
  }

  /**
   * The resources of a category (`all`: what `kubectl get all` lists), one version each: the
   * first in discovery order, the preferred one.
   */
  async category(name: string): Promise<ResourceInfo[]> {
    const seen = new Set<string>();
    return (await this.resources()).filter((r) => {
      const id = `${r.group}/${r.resource}`;
      if (!r.categories?.includes(name) || seen.has(id)) return false;
      seen.add(id);
      return true;
    });
  }

  /** Finds the resource serving a kind in a group (e.g. from an ownerReference's apiVersion and kind). */
  async forKind(apiVersion: string, kind: string): Promise<ResourceInfo | undefined> {
    const [group, version] = apiVersion.includes('/') ? (apiVersion.split('/') as [string, string]) : ['', apiVersion];
    const { found } = await this.find(
      (all) => all.find((r) => r.group === group && r.version === version && r.kind === kind) ?? all.find((r) => r.group === group && r.kind === kind),
    );
    return found;
  }
}

/**
 * kubectl's matching: "name", "name.group" or "name.version.group", where name is the plural, the
 * singular, a short name or the kind (any case). The first match in discovery order wins, which puts
 * the core group and preferred versions first.
 */
export function matchResource(all: ResourceInfo[], input: string): ResourceInfo | undefined {
  const lower = input.toLowerCase();
  const nameMatches = (r: ResourceInfo, n: string): boolean =>
    r.resource === n || r.singularName === n || r.shortNames.includes(n) || r.kind.toLowerCase() === n;
  // Whole name first (a resource with no group suffix).
  const plain = all.find((r) => nameMatches(r, lower));
  if (plain && !lower.includes('.')) return plain;
  const dot = lower.indexOf('.');
  if (dot > 0) {
    const n = lower.slice(0, dot);
    const rest = lower.slice(dot + 1);
    const withGroup = all.find((r) => nameMatches(r, n) && r.group === rest);
    if (withGroup) return withGroup;
    const vdot = rest.indexOf('.');
    if (vdot > 0) {
      const version = rest.slice(0, vdot);
      const group = rest.slice(vdot + 1);
      const exact = all.find((r) => nameMatches(r, n) && r.group === group && r.version === version);
      if (exact) return exact;
    }
    if (rest === 'core' || rest === 'v1') {
      const core = all.find((r) => nameMatches(r, n) && r.group === '');
      if (core) return core;
    }
  }
  return plain;
}
