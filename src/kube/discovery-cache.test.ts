import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../tools/testing/fake-clock.js';
import { resourceInfo } from '../../tools/testing/resource-info.js';
import type { KubeClient } from './client.js';
import { Discovery } from './discovery.js';
import {
  cacheDir,
  DISCOVERY_TTL_MS,
  DiskDiscoveryStore,
  discoveryFile,
  discoveryStoreFor,
  KubectlDiscoveryCache,
  kubectlDiscoveryDir,
  serverFileName,
} from './discovery-cache.js';
import type { ResourceInfo } from './types.js';

const SERVER = 'https://10.0.0.1:6443';
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'discovery-cache-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const deployments = resourceInfo('apps', 'deployments', 'Deployment', { shortNames: ['deploy'] });
const widgets = resourceInfo('example.com', 'widgets', 'Widget');

/** Aggregated discovery documents for `resources`, split as the server splits them (/api, /apis). */
function aggregated(resources: ResourceInfo[], core: boolean): string {
  const groups = new Map<string, ResourceInfo[]>();
  for (const r of resources.filter((x) => (x.group === '') === core)) groups.set(r.group, [...(groups.get(r.group) ?? []), r]);
  return JSON.stringify({
    kind: 'APIGroupDiscoveryList',
    items: [...groups].map(([group, rs]) => ({
      metadata: { name: group },
      versions: [
        {
          version: 'v1',
          resources: rs.map((r) => ({
            resource: r.resource,
            responseKind: { kind: r.kind },
            scope: r.namespaced ? 'Namespaced' : 'Cluster',
            singularResource: r.singularName,
            shortNames: r.shortNames,
            verbs: r.verbs,
          })),
        },
      ],
    })),
  });
}

/** A client whose server serves `served` (changeable), counting the discovery requests. */
function fakeServer(served: ResourceInfo[]): { client: KubeClient; requests: string[]; serve: (rs: ResourceInfo[]) => void } {
  const requests: string[] = [];
  let now = served;
  const client = {
    raw: async (path: string) => {
      requests.push(path);
      return { body: aggregated(now, path === '/api') };
    },
  } as unknown as KubeClient;
  return { client, requests, serve: (rs) => (now = rs) };
}

describe('DiskDiscoveryStore', () => {
  it('gives back what it kept for the same server while it is younger than six hours', () => {
    const clock = new FakeClock(1_000_000);
    const store = new DiskDiscoveryStore(join(dir, 'discovery', 'a.json'), SERVER, clock);
    expect(store.read()).toBeUndefined();
    store.write([deployments]);
    expect(store.read()).toEqual([deployments]);
    clock.set(1_000_000 + DISCOVERY_TTL_MS - 1);
    expect(store.read()).toEqual([deployments]);
    clock.set(1_000_000 + DISCOVERY_TTL_MS);
    expect(store.read()).toBeUndefined();
    expect(statSync(join(dir, 'discovery', 'a.json')).mode & 0o777).toBe(0o600);
  });

  it('ignores a file of another server, another format, from the future or not JSON', () => {
    const file = join(dir, 'a.json');
    const store = new DiskDiscoveryStore(file, SERVER, new FakeClock(5_000));
    store.write([deployments]);
    const kept = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    for (const changed of [{ server: 'https://10.0.0.2:6443' }, { format: 2 }, { savedAtMs: 6_000 }, { resources: 'x' }]) {
      writeFileSync(file, JSON.stringify({ ...kept, ...changed }));
      expect(store.read(), JSON.stringify(changed)).toBeUndefined();
    }
    writeFileSync(file, '{"format":1,');
    expect(store.read()).toBeUndefined();
  });

  it('does not throw when the folder cannot be made', () => {
    writeFileSync(join(dir, 'file'), '');
    const store = new DiskDiscoveryStore(join(dir, 'file', 'discovery', 'a.json'), SERVER);
    expect(() => store.write([deployments])).not.toThrow();
    expect(store.read()).toBeUndefined();
  });
});

describe('where the answer is kept', () => {
  it('names the file by scheme, host, port and path, with nothing that could leave the folder', () => {
    expect(serverFileName('https://10.0.0.1:6443')).toBe('https_10.0.0.1_6443');
    expect(serverFileName('https://api.example.com')).toBe('https_api.example.com_443');
    expect(serverFileName('http://localhost:8080/')).toBe('http_localhost_8080');
    expect(serverFileName('https://[::1]:6443/k8s/clusters/c-1')).toBe('https____1__6443_k8s_clusters_c-1');
    expect(serverFileName('https://host/../..')).not.toContain('/');
  });

  it('uses INFORMER_TRACE_CACHE_DIR, else XDG_CACHE_HOME, else ~/.cache; off keeps nothing', () => {
    expect(cacheDir({ INFORMER_TRACE_CACHE_DIR: '/c', XDG_CACHE_HOME: '/x' })).toBe('/c');
    expect(cacheDir({ XDG_CACHE_HOME: '/x' })).toBe(join('/x', 'informer-trace'));
    expect(cacheDir({})).toMatch(/[\\/]\.cache[\\/]informer-trace$/);
    expect(cacheDir({ INFORMER_TRACE_CACHE_DIR: 'off' })).toBeUndefined();
    expect(discoveryStoreFor(SERVER, { INFORMER_TRACE_CACHE_DIR: 'off' })).toBeUndefined();
    expect(discoveryFile(SERVER, { INFORMER_TRACE_CACHE_DIR: dir })).toBe(join(dir, 'discovery', 'https_10.0.0.1_6443.json'));
    discoveryStoreFor(SERVER, { INFORMER_TRACE_CACHE_DIR: dir, KUBECACHEDIR: join(dir, 'none') })!.write([deployments]);
    expect(JSON.parse(readFileSync(discoveryFile(SERVER, { INFORMER_TRACE_CACHE_DIR: dir })!, 'utf8')).resources).toEqual([deployments]);
  });

  it("finds kubectl's cache for a server where client-go puts it: KUBECACHEDIR, else ~/.kube/cache", () => {
    expect(kubectlDiscoveryDir('https://10.0.0.1:6443', { KUBECACHEDIR: '/k' })).toBe(join('/k', 'discovery', '10.0.0.1_6443'));
    expect(kubectlDiscoveryDir('http://localhost:8080', { KUBECACHEDIR: '/k' })).toBe(join('/k', 'discovery', 'localhost_8080'));
    expect(kubectlDiscoveryDir('https://[::1]:6443', { KUBECACHEDIR: '/k' })).toBe(join('/k', 'discovery', '___1__6443'));
    expect(kubectlDiscoveryDir('https://api.example.com/k8s/clusters/c-1', {})).toMatch(
      /[\\/]\.kube[\\/]cache[\\/]discovery[\\/]api\.example\.com\/k8s\/clusters\/c_1$/,
    );
  });
});

/**
 * kubectl's discovery cache as client-go's disk cache writes it (APIGroupList, then an
 * APIResourceList per group version): the core group first, apps with two versions (v1 preferred).
 */
function writeKubectlCache(root: string, writtenAt = new Date()): string {
  const at = kubectlDiscoveryDir(SERVER, { KUBECACHEDIR: root });
  const put = (file: string, doc: unknown): void => {
    mkdirSync(join(at, file, '..'), { recursive: true });
    writeFileSync(join(at, file), JSON.stringify(doc));
    utimesSync(join(at, file), writtenAt, writtenAt);
  };
  put('servergroups.json', {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: [
      { name: '', versions: [{ groupVersion: 'v1', version: 'v1' }], preferredVersion: { groupVersion: 'v1', version: 'v1' } },
      {
        name: 'apps',
        versions: [
          { groupVersion: 'apps/v1beta2', version: 'v1beta2' },
          { groupVersion: 'apps/v1', version: 'v1' },
        ],
        preferredVersion: { groupVersion: 'apps/v1', version: 'v1' },
      },
    ],
  });
  const pods = { name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs: ['get', 'list', 'watch'], shortNames: ['po'], categories: ['all'] };
  const deploy = {
    name: 'deployments',
    singularName: 'deployment',
    namespaced: true,
    kind: 'Deployment',
    verbs: ['get', 'list', 'watch'],
    shortNames: ['deploy'],
  };
  put('v1/serverresources.json', { kind: 'APIResourceList', groupVersion: 'v1', resources: [pods, { ...pods, name: 'pods/status', kind: 'Pod' }] });
  put('apps/v1/serverresources.json', { kind: 'APIResourceList', groupVersion: 'apps/v1', resources: [deploy] });
  put('apps/v1beta2/serverresources.json', { kind: 'APIResourceList', groupVersion: 'apps/v1beta2', resources: [deploy] });
  return at;
}

describe("kubectl's discovery cache", () => {
  it('gives every resource of its group versions, core first and preferred versions first, subresources left out', () => {
    const at = writeKubectlCache(dir, new Date(1_000_000));
    const kept = new KubectlDiscoveryCache(at, new FakeClock(1_000_000 + DISCOVERY_TTL_MS - 1)).read();
    expect(kept?.resources.map((r) => `${r.group}/${r.version}/${r.resource}`)).toEqual(['/v1/pods', 'apps/v1/deployments', 'apps/v1beta2/deployments']);
    expect(kept?.resources[0]).toMatchObject({ kind: 'Pod', namespaced: true, shortNames: ['po'], singularName: 'pod', categories: ['all'] });
    expect(kept?.savedAtMs).toBe(1_000_000);
  });

  it('is read whole or not at all: a file six hours old, a group version missing, or one not JSON, and the server is asked', () => {
    const at = writeKubectlCache(dir, new Date(1_000_000));
    expect(new KubectlDiscoveryCache(at, new FakeClock(1_000_000 + DISCOVERY_TTL_MS)).read()).toBeUndefined();
    const clock = new FakeClock(2_000_000);
    const young = new Date(1_900_000);
    utimesSync(join(at, 'servergroups.json'), young, young);
    utimesSync(join(at, 'v1', 'serverresources.json'), young, young);
    utimesSync(join(at, 'apps', 'v1', 'serverresources.json'), young, young);
    // One group version still old.
    expect(new KubectlDiscoveryCache(at, new FakeClock(1_000_000 + DISCOVERY_TTL_MS)).read()).toBeUndefined();
    utimesSync(join(at, 'apps', 'v1beta2', 'serverresources.json'), young, young);
    expect(new KubectlDiscoveryCache(at, clock).read()?.resources).toHaveLength(3);
    rmSync(join(at, 'apps', 'v1beta2'), { recursive: true });
    expect(new KubectlDiscoveryCache(at, clock).read()).toBeUndefined();
    writeKubectlCache(dir, young);
    writeFileSync(join(at, 'apps', 'v1', 'serverresources.json'), '{"kind":');
    utimesSync(join(at, 'apps', 'v1', 'serverresources.json'), young, young);
    expect(new KubectlDiscoveryCache(at, clock).read()).toBeUndefined();
    expect(new KubectlDiscoveryCache(join(dir, 'nothing'), clock).read()).toBeUndefined();
  });

  it("stands in on a first run: no request, and the tool keeps it in its own file with the age of kubectl's", async () => {
    const writtenAt = new Date(Date.now() - 60_000);
    writeKubectlCache(join(dir, 'kube'), writtenAt);
    const env = { INFORMER_TRACE_CACHE_DIR: join(dir, 'ours'), KUBECACHEDIR: join(dir, 'kube') };
    const server = fakeServer([deployments]);
    expect(await new Discovery(server.client, discoveryStoreFor(SERVER, env)).resolve('deploy')).toMatchObject({ group: 'apps', version: 'v1' });
    expect(server.requests).toEqual([]);
    const own = JSON.parse(readFileSync(join(dir, 'ours', 'discovery', 'https_10.0.0.1_6443.json'), 'utf8')) as {
      savedAtMs: number;
      resources: ResourceInfo[];
    };
    expect(own.savedAtMs).toBe(writtenAt.getTime());
    expect(own.resources).toHaveLength(3);
    // kubectl's gone: the tool's own file answers.
    rmSync(join(dir, 'kube'), { recursive: true });
    expect(await new Discovery(server.client, discoveryStoreFor(SERVER, env)).resolve('po')).toMatchObject({ resource: 'pods' });
    expect(server.requests).toEqual([]);
    // A name neither knows: the server is asked, as for the tool's own kept answer.
    await expect(new Discovery(server.client, discoveryStoreFor(SERVER, env)).resolve('widgets')).rejects.toThrow('"widgets"');
    expect(server.requests.sort()).toEqual(['/api', '/apis']);
  });
});

describe('Discovery with a kept answer', () => {
  const store = (): DiskDiscoveryStore => new DiskDiscoveryStore(join(dir, 'a.json'), SERVER);

  /** An earlier run kept [deployments]; the server has served widgets too since. A new run's Discovery, no request counted yet. */
  async function keptThenDefined(): Promise<{ server: ReturnType<typeof fakeServer>; discovery: Discovery }> {
    const server = fakeServer([deployments]);
    await new Discovery(server.client, store()).resources();
    server.serve([deployments, widgets]);
    server.requests.length = 0;
    return { server, discovery: new Discovery(server.client, store()) };
  }

  it('asks the server once, keeps its answer, and the next run asks nothing', async () => {
    const first = fakeServer([deployments]);
    expect(await new Discovery(first.client, store()).resolve('deploy')).toMatchObject({ group: 'apps', resource: 'deployments' });
    expect(first.requests.sort()).toEqual(['/api', '/apis']);
    const next = fakeServer([deployments]);
    expect(await new Discovery(next.client, store()).resolve('deployments.apps')).toMatchObject({ resource: 'deployments' });
    expect(next.requests).toEqual([]);
  });

  it('asks the server again for a name the kept answer lacks, and keeps the new answer', async () => {
    const { server, discovery } = await keptThenDefined();
    expect(await discovery.resolve('widgets')).toMatchObject({ group: 'example.com' });
    expect(server.requests.sort()).toEqual(['/api', '/apis']);
    expect(
      store()
        .read()
        ?.map((r) => r.resource),
    ).toEqual(['deployments', 'widgets']);
    // Asked once: a miss in the server's own answer is a miss.
    await expect(discovery.resolve('gadgets')).rejects.toThrow('the server does not have a resource type "gadgets"');
    expect(server.requests).toHaveLength(2);
  });

  it('asks the server once for callers that miss in the same kept answer together', async () => {
    const { server, discovery } = await keptThenDefined();
    const found = await Promise.all([discovery.resolve('widgets'), discovery.forKind('example.com/v1', 'Widget'), discovery.first((r) => r.kind === 'Widget')]);
    expect(found.map((r) => r?.resource)).toEqual(['widgets', 'widgets', 'widgets']);
    expect(server.requests).toHaveLength(2);
  });

  it('served(): the server answer in place of a kept one, asked once', async () => {
    const { server, discovery } = await keptThenDefined();
    expect((await discovery.resources()).map((r) => r.resource)).toEqual(['deployments']);
    expect((await discovery.served()).map((r) => r.resource)).toEqual(['deployments', 'widgets']);
    expect((await discovery.served()).map((r) => r.resource)).toEqual(['deployments', 'widgets']);
    expect(server.requests).toHaveLength(2);
    // First thing asked of a new Discovery too.
    server.serve([widgets]);
    expect((await new Discovery(server.client, store()).served()).map((r) => r.resource)).toEqual(['widgets']);
    expect(server.requests).toHaveLength(4);
  });

  it('asks the server after invalidate(), whatever is kept', async () => {
    const server = fakeServer([deployments]);
    await new Discovery(server.client, store()).resources();
    server.requests.length = 0;
    const discovery = new Discovery(server.client, store());
    await discovery.resources();
    expect(server.requests).toEqual([]);
    discovery.invalidate();
    await discovery.resources();
    expect(server.requests).toHaveLength(2);
  });
});
