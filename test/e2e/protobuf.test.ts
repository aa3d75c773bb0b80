/**
 * Protobuf against the real API server: built-in kinds are listed and watched in
 * application/vnd.kubernetes.protobuf, and every object decoded from it must equal the one the
 * same server gives in JSON — for every kind the local control plane has objects of, with a
 * Deployment's Pods, ReplicaSet and Events among them. The watch gives the same events in both
 * encodings, and an error answer in protobuf is read as the same Status as in JSON. (An
 * expired resourceVersion's 410 in a protobuf watch is in informer.test.ts, whose ConfigMaps are
 * watched in protobuf.)
 */
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, ResourceListerWatcher, type KubeObject, type ResourceInfo, type WatchEvent } from '../../src/kube/index.js';
import { adminKube, createDeployment, createWorkloadNamespace, deleteNamespace, deploymentAvailable, uniqueName } from './helpers.js';

const kube = adminKube();
const ns = uniqueName('it-pb');

/** The resources compared: every kind the local cluster has objects of, across API groups. */
const RESOURCES = [
  'pods',
  'replicasets.apps',
  'deployments.apps',
  'events',
  'events.events.k8s.io',
  'nodes',
  'namespaces',
  'services',
  'endpointslices.discovery.k8s.io',
  'configmaps',
  'serviceaccounts',
  'leases.coordination.k8s.io',
  'clusterroles.rbac.authorization.k8s.io',
  'clusterrolebindings.rbac.authorization.k8s.io',
  'flowschemas.flowcontrol.apiserver.k8s.io',
  'prioritylevelconfigurations.flowcontrol.apiserver.k8s.io',
  'priorityclasses.scheduling.k8s.io',
];

function byKey(items: KubeObject[]): Map<string, KubeObject> {
  return new Map(items.map((o) => [`${o.metadata.namespace ?? ''}/${o.metadata.name}`, o]));
}

/** The first path at which two values differ, for a readable failure. */
function firstDifference(a: unknown, b: unknown, path = ''): string | undefined {
  if (isDeepStrictEqual(a, b)) return undefined;
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const d = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`);
      if (d) return d;
    }
  }
  return `${path || '(root)'}: protobuf ${JSON.stringify(a)?.slice(0, 120)} vs JSON ${JSON.stringify(b)?.slice(0, 120)}`;
}

beforeAll(async () => {
  await createWorkloadNamespace(kube, ns);
  await createDeployment(kube, ns, 'web', 3);
  await deploymentAvailable(kube, ns, 'web', 3);
}, 120_000);

afterAll(async () => {
  await deleteNamespace(kube, ns);
});

describe('protobuf lists and watches (issue 19)', () => {
  it('decodes every object of every built-in kind here exactly as the API server JSON gives it', async () => {
    let compared = 0;
    for (const name of RESOURCES) {
      const resource: ResourceInfo = await kube.discovery.resolve(name);
      const pb = new ResourceListerWatcher(kube.client, resource);
      const json = new ResourceListerWatcher(kube.client, resource, { encoding: 'json' });
      expect(pb.offersProtobuf, name).toBe(true);
      // Quorum reads, then only objects at the same resourceVersion in both are compared.
      const [a, b] = await Promise.all([pb.list({}), json.list({})]);
      expect(a.encoding, name).toBe('protobuf');
      expect(b.encoding, name).toBe('json');
      expect(a.items.length, name).toBeGreaterThan(0);
      const fromJson = byKey(b.items);
      let same = 0;
      for (const obj of a.items) {
        const other = fromJson.get(`${obj.metadata.namespace ?? ''}/${obj.metadata.name}`);
        if (!other || other.metadata.resourceVersion !== obj.metadata.resourceVersion) continue;
        const diff = firstDifference(obj, other);
        expect(diff, `${name} ${obj.metadata.namespace ?? ''}/${obj.metadata.name}`).toBeUndefined();
        same++;
      }
      expect(same, `${name}: objects at the same resourceVersion in both lists`).toBeGreaterThan(0);
      compared += same;
    }
    expect(compared).toBeGreaterThan(100);
  }, 120_000);

  it('skips managedFields when the transform drops them, and nothing else', async () => {
    const resource = await kube.discovery.resolve('pods');
    const lw = new ResourceListerWatcher(kube.client, resource, { namespace: ns });
    const [full, skipped] = await Promise.all([lw.list({}), lw.list({}, undefined, { skipManagedFields: true })]);
    expect(full.items.every((p) => Array.isArray(p.metadata.managedFields))).toBe(true);
    expect(skipped.items.every((p) => !Object.hasOwn(p.metadata, 'managedFields'))).toBe(true);
    const strip = (o: KubeObject): KubeObject => ({ ...o, metadata: { ...o.metadata, managedFields: undefined } });
    const same = byKey(skipped.items.map(strip));
    for (const p of full.items.map(strip)) {
      const other = same.get(`${p.metadata.namespace}/${p.metadata.name}`);
      if (other?.metadata.resourceVersion === p.metadata.resourceVersion) expect(JSON.stringify(other)).toBe(JSON.stringify(p));
    }
  });

  it("leaves a List's specs and statuses undecoded until read, then gives what JSON gives", async () => {
    const resource = await kube.discovery.resolve('pods');
    const pb = new ResourceListerWatcher(kube.client, resource, { namespace: ns });
    const json = new ResourceListerWatcher(kube.client, resource, { namespace: ns, encoding: 'json' });
    const [a, b] = await Promise.all([pb.list({}, undefined, { skipManagedFields: true }), json.list({})]);
    expect(a.items).toHaveLength(3);
    const waiting = (o: KubeObject, name: string): boolean => typeof Object.getOwnPropertyDescriptor(o, name)?.get === 'function';
    expect(a.items.every((p) => waiting(p, 'spec') && waiting(p, 'status') && !waiting(p, 'metadata'))).toBe(true);
    const fromJson = byKey(b.items.map((o) => ({ ...o, metadata: { ...o.metadata, managedFields: undefined } })));
    for (const p of a.items) {
      const other = fromJson.get(`${ns}/${p.metadata.name}`)!;
      if (other.metadata.resourceVersion !== p.metadata.resourceVersion) continue;
      expect(p.status).toEqual(other.status);
      expect(waiting(p, 'status')).toBe(false);
      expect(waiting(p, 'spec')).toBe(true);
      // Serialised without a read first: through the accessor, as every other field.
      expect(JSON.parse(JSON.stringify(p))).toEqual(other);
    }
    // A program that reads every object asks for them whole.
    const whole = await new ResourceListerWatcher(kube.client, resource, { namespace: ns, deferSpecStatus: false }).list({}, undefined, {
      skipManagedFields: true,
    });
    expect(whole.encoding).toBe('protobuf');
    expect(whole.items.some((p) => waiting(p, 'spec') || waiting(p, 'status'))).toBe(false);
  });

  it('gives the same watch events in protobuf and JSON, from the same resourceVersion', async () => {
    const resource = await kube.discovery.resolve('configmaps');
    const pb = new ResourceListerWatcher(kube.client, resource, { namespace: ns });
    const json = new ResourceListerWatcher(kube.client, resource, { namespace: ns, encoding: 'json' });
    const { resourceVersion } = await json.list({});
    const name = uniqueName('cm');
    const collect = async (lw: ResourceListerWatcher): Promise<WatchEvent[]> => {
      const events: WatchEvent[] = [];
      const w = await lw.watch({ resourceVersion, timeoutSeconds: 60 });
      for await (const ev of w) {
        if (ev.object.metadata?.name !== name) continue;
        events.push(ev);
        if (ev.type === 'DELETED') break;
      }
      w.stop();
      return events;
    };
    const both = Promise.all([collect(pb), collect(json)]);
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    await kube.client.json(path, {
      method: 'POST',
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { step: 'one' } }, data: { a: '1' } },
    });
    await kube.client.json(`${path}/${name}`, {
      method: 'PATCH',
      contentType: 'application/merge-patch+json',
      body: { metadata: { labels: { step: 'two' } }, data: { b: '' }, binaryData: { c: Buffer.from([0, 1, 2]).toString('base64') } },
    });
    await kube.client.json(`${path}/${name}`, { method: 'DELETE' });
    const [fromPb, fromJson] = await both;
    expect(fromPb.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    for (let i = 0; i < fromPb.length; i++) expect(firstDifference(fromPb[i], fromJson[i])).toBeUndefined();
    expect(fromPb[1]!.object.binaryData).toEqual({ c: 'AAEC' });
  }, 60_000);

  it('reads an error answer sent in protobuf as the same Status as in JSON', async () => {
    const resource = await kube.discovery.resolve('configmaps');
    const refused = (lw: ResourceListerWatcher): Promise<unknown> =>
      lw.list({ fieldSelector: 'spec.bogus=1' }).then(
        () => undefined,
        (err: unknown) => err,
      );
    const [pb, json] = await Promise.all([
      refused(new ResourceListerWatcher(kube.client, resource, { namespace: ns })),
      refused(new ResourceListerWatcher(kube.client, resource, { namespace: ns, encoding: 'json' })),
    ]);
    expect(pb).toBeInstanceOf(ApiError);
    expect(json).toBeInstanceOf(ApiError);
    const [a, b] = [pb as ApiError, json as ApiError];
    expect(a.code).toBe(400);
    expect(a.reason).toBe('BadRequest');
    expect(a.message).toMatch(/spec\.bogus/);
    expect([a.code, a.reason, a.message, a.status]).toEqual([b.code, b.reason, b.message, b.status]);
  });
});
