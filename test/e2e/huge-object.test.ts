/**
 * An object near the API server's size limit (a custom resource with a 1.4 MiB string in its
 * spec; etcd takes requests up to 1.5 MiB): the trace's field diff shows the change as one short
 * line with its size, the cache's table stays one short line for it and -o json carries the
 * whole object. On the real control plane.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInformerTraceProgram } from '../../src/commands/informer-trace.js';
import { adminKube, cluster, createCrd, createNamespace, deleteCrd, deleteNamespace, eventually, runCli, startCli, uniqueName } from './helpers.js';

const kube = adminKube();
const ns = uniqueName('it-huge');
const group = `${uniqueName('b')}.informer-trace.test`;
const crd = `blobs.${group}`;
const BLOB = Math.round(1.4 * 1024 * 1024);
const path = `/apis/${group}/v1/namespaces/${ns}/blobs`;

beforeAll(async () => {
  await createCrd(kube, group, { kind: 'Blob', plural: 'blobs' });
  await createNamespace(kube, ns);
  await kube.client.json(path, {
    method: 'POST',
    body: { apiVersion: `${group}/v1`, kind: 'Blob', metadata: { name: 'big' }, spec: { size: 1, blob: 'a'.repeat(BLOB) } },
  });
});

afterAll(async () => {
  await deleteNamespace(kube, ns);
  await deleteCrd(kube, crd);
});

describe('an object of 1.4 MiB', () => {
  it('the trace: the change of the huge field is one short line that says its size', async () => {
    const cli = startCli(createInformerTraceProgram, [
      `blob.${group}/big`,
      '--watch',
      '-n',
      ns,
      '--kubeconfig',
      cluster().kubeconfigPath,
      '-o',
      'json',
      '--timeout',
      '8s',
    ]);
    await eventually('the trace to watch', async () => cli.stderr().includes('watching Blob/big'));
    await kube.client.json(`${path}/big`, {
      method: 'PATCH',
      contentType: 'application/merge-patch+json',
      body: { spec: { size: 2, blob: 'b'.repeat(BLOB) } },
    });
    const r = await cli.done;
    expect(r.stderr).not.toMatch(/^\s+at /m);
    const hops = (JSON.parse(r.stdout) as { hops: { ref: { name: string }; changes?: { path: string; from?: string; to?: string }[] }[] }).hops;
    const changes = hops.flatMap((h) => h.changes ?? []);
    expect(changes).toEqual(
      expect.arrayContaining([
        { path: 'spec.blob', from: `${'a'.repeat(47)}… (1.4 MiB)`, to: `${'b'.repeat(47)}… (1.4 MiB)` },
        { path: 'spec.size', from: '1', to: '2' },
      ]),
    );
    // Not a copy of the object: the whole output is far smaller than one version of it.
    expect(r.stdout.length).toBeLessThan(64 * 1024);
  });

  it('cache: the table is one short line for it; -o json carries the whole object', async () => {
    const table = await runCli(createInformerTraceProgram, ['cache', `blobs.${group}`, '-n', ns, '--kubeconfig', cluster().kubeconfigPath]);
    expect(table.code, table.stderr).toBe(0);
    const row = table.stdout.split('\n').find((l) => l.includes('big'));
    expect(row).toBeDefined();
    expect(table.stdout.length).toBeLessThan(4 * 1024);
    const json = await runCli(createInformerTraceProgram, ['cache', `blobs.${group}`, '-n', ns, '-o', 'json', '--kubeconfig', cluster().kubeconfigPath]);
    expect(json.code, json.stderr).toBe(0);
    const items = (JSON.parse(json.stdout) as { items: { metadata: { name: string }; spec: { blob: string } }[] }).items;
    expect(items.map((o) => [o.metadata.name, o.spec.blob.length])).toEqual([['big', BLOB]]);
  });
});
