/**
 * gzip against the real API server: requests ask for it (as client-go's do), kube-apiserver
 * compresses a List page above 128 KiB, and what the informer lists from it equals what the same
 * server sends uncompressed, in protobuf and in JSON. `--disable-compression` turns it off, and
 * so does a kubeconfig cluster entry's `disable-compression: true`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { createInformerTraceProgram } from '../../src/commands/informer-trace.js';
import { PROTOBUF } from '../../src/kube/client.js';
import { connect, ResourceListerWatcher, type Kube, type KubeObject, type ResourceInfo } from '../../src/kube/index.js';
import { adminKube, cluster, createNamespace, deleteNamespace, runCli, uniqueName } from './helpers.js';

const kube = adminKube();
const plain = connect({ kubeconfig: cluster().kubeconfigPath, disableCompression: true });
const ns = uniqueName('it-gzip');
const COUNT = 40;
const configMaps: ResourceInfo = {
  group: '',
  version: 'v1',
  resource: 'configmaps',
  kind: 'ConfigMap',
  namespaced: true,
  verbs: ['list', 'watch'],
  shortNames: ['cm'],
  singularName: 'configmap',
};

beforeAll(async () => {
  await createNamespace(kube, ns);
  // 40 ConfigMaps of 8 KiB each: one page of about 330 KiB, above the API server's 128 KiB.
  for (let i = 0; i < COUNT; i++) {
    const data = { blob: `${i}-`.padEnd(8192, 'abcdefghijklmnopqrstuvwxyz'.charAt(i % 26)) };
    await kube.client.json(`/api/v1/namespaces/${ns}/configmaps`, {
      method: 'POST',
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data },
    });
  }
}, 120_000);

const dir = mkdtempSync(join(tmpdir(), 'informer-trace-gzip-'));
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await deleteNamespace(kube, ns);
});

/** The local cluster's kubeconfig with `disable-compression: true` on every cluster entry. */
function kubeconfigWithoutCompression(): string {
  const doc = parseDocument(readFileSync(cluster().kubeconfigPath, 'utf8'));
  const clusters = doc.get('clusters') as { items: { setIn(path: string[], value: unknown): void }[] };
  for (const entry of clusters.items) entry.setIn(['cluster', 'disable-compression'], true);
  const file = join(dir, 'kubeconfig');
  writeFileSync(file, doc.toString());
  return file;
}

async function listed(k: Kube, encoding: 'protobuf' | 'json'): Promise<KubeObject[]> {
  const lw = new ResourceListerWatcher(k.client, configMaps, { namespace: ns, ...(encoding === 'json' ? { encoding: 'json' as const } : {}) });
  const r = await lw.list({ resourceVersion: '', limit: 500 });
  expect(r.encoding).toBe(encoding);
  // kube-controller-manager adds kube-root-ca.crt to the namespace; only the test's own count.
  return (r.items as KubeObject[]).filter((o) => o.metadata.name?.startsWith('cm-'));
}

describe('response compression on the real API server', () => {
  it('a large List page comes gzip-compressed by default and not with compression off', async () => {
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    for (const accept of [PROTOBUF, 'application/json']) {
      const gz = await kube.client.openOk(path, { accept });
      expect(gz.headers['content-encoding'], accept).toBe('gzip');
      gz.destroy();
      const raw = await plain.client.openOk(path, { accept });
      expect(raw.headers['content-encoding'], accept).toBeUndefined();
      raw.destroy();
    }
  });

  it("a kubeconfig cluster entry's disable-compression: true turns it off, as kubectl reads it", async () => {
    const fromFile = connect({ kubeconfig: kubeconfigWithoutCompression() });
    expect(fromFile.connection.compression).toBe(false);
    const res = await fromFile.client.openOk(`/api/v1/namespaces/${ns}/configmaps`, { accept: PROTOBUF });
    expect(res.headers['content-encoding']).toBeUndefined();
    res.destroy();
  });

  it('the informer lists the same objects from a compressed answer as from an uncompressed one', async () => {
    for (const encoding of ['protobuf', 'json'] as const) {
      const [gz, raw] = await Promise.all([listed(kube, encoding), listed(plain, encoding)]);
      expect(gz).toHaveLength(COUNT);
      expect(JSON.parse(JSON.stringify(gz))).toEqual(JSON.parse(JSON.stringify(raw)));
      expect(gz.map((o) => (o as unknown as { data: { blob: string } }).data.blob.length)).toEqual(Array(COUNT).fill(8192));
    }
  });

  it('cache prints the same with --disable-compression as without', async () => {
    const args = ['cache', 'configmaps', '-n', ns, '-o', 'json', '--kubeconfig', cluster().kubeconfigPath];
    const [gz, raw] = await Promise.all([runCli(createInformerTraceProgram, args), runCli(createInformerTraceProgram, [...args, '--disable-compression'])]);
    expect(gz.code, gz.stderr).toBe(0);
    expect(raw.code, raw.stderr).toBe(0);
    const items = (out: string): KubeObject[] => (JSON.parse(out) as { items: KubeObject[] }).items.filter((o) => o.metadata.name?.startsWith('cm-'));
    expect(items(gz.stdout)).toHaveLength(COUNT);
    expect(items(gz.stdout)).toEqual(items(raw.stdout));
  });
});
