/**
 * Discovery's answer kept between runs (src/kube/discovery-cache.ts), with the plugin run as a
 * user runs it (bin/, a process of its own) against the real control plane: the first run keeps
 * the server's answer, the next one resolves from it without asking, a name the kept answer lacks
 * (a definition created since) is asked for again, and an answer older than six hours is not used.
 * With none of its own, a run reads the discovery cache the real kubectl wrote.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISCOVERY_TTL_MS, discoveryFile, kubectlDiscoveryDir, type ResourceInfo } from '../../src/kube/index.js';
import { adminKube, cluster, createCrd, createNamespace, deleteCrd, deleteNamespace, execProgram, uniqueName } from './helpers.js';

const kube = adminKube();
const ns = uniqueName('it-disc');
const group = `${uniqueName('d')}.informer-trace.test`;
const dir = mkdtempSync(join(tmpdir(), 'informer-trace-cache-'));
// Where the plugin, given this folder, keeps this server's answer; kubectl's cache is a folder of the test's own.
const file = discoveryFile(kube.connection.server, { INFORMER_TRACE_CACHE_DIR: dir })!;
const kubeCache = join(dir, 'kube-cache');

interface Kept {
  savedAtMs: number;
  resources: ResourceInfo[];
}
const kept = (): Kept => JSON.parse(readFileSync(file, 'utf8')) as Kept;

function plugin(...args: string[]): ReturnType<typeof execProgram> {
  return execProgram('bin/kubectl-informer_trace', [...args, '-n', ns, '--kubeconfig', cluster().kubeconfigPath], {
    env: { ...process.env, INFORMER_TRACE_CACHE_DIR: dir, KUBECACHEDIR: kubeCache },
  });
}

/** Every file under `at`, with its path. */
function filesUnder(at: string): string[] {
  return readdirSync(at, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

beforeAll(async () => {
  await createNamespace(kube, ns);
  await kube.client.json(`/api/v1/namespaces/${ns}/configmaps`, { method: 'POST', body: { metadata: { name: 'settings' }, data: { a: '1' } } });
});

afterAll(async () => {
  await deleteNamespace(kube, ns);
  await deleteCrd(kube, `sprockets.${group}`).catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

describe('discovery kept between runs', () => {
  it('the first run keeps the server answer; the next resolves from it without asking', async () => {
    const first = await plugin('cache', 'configmaps');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('settings');
    const answer = kept();
    expect(answer.resources.find((r) => r.resource === 'configmaps')).toMatchObject({ group: '', version: 'v1', namespaced: true });
    expect(Date.now() - answer.savedAtMs).toBeLessThan(60_000);

    // A short name the server has never had: only a run that reads the kept answer resolves it.
    const configmaps = answer.resources.find((r) => r.resource === 'configmaps')!;
    configmaps.shortNames = [...configmaps.shortNames, 'keptcm'];
    writeFileSync(file, JSON.stringify(answer));
    const next = await plugin('cache', 'keptcm');
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toContain('settings');
  });

  it('asks the server again for a kind defined since, and keeps that answer', async () => {
    expect(kept().resources.some((r) => r.group === group)).toBe(false);
    await createCrd(kube, group, { kind: 'Sprocket', plural: 'sprockets' });
    const r = await plugin('cache', `sprockets.${group}`);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('does not have a resource type');
    expect(kept().resources.find((x) => x.group === group)).toMatchObject({ resource: 'sprockets', kind: 'Sprocket' });
  });

  it('does not use an answer older than six hours', async () => {
    const answer = kept();
    answer.resources.find((r) => r.resource === 'configmaps')!.shortNames.push('stalecm');
    writeFileSync(file, JSON.stringify({ ...answer, savedAtMs: Date.now() - DISCOVERY_TTL_MS - 1000 }));
    const r = await plugin('cache', 'stalecm');
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe('error: the server does not have a resource type "stalecm"');
    expect(kept().resources.find((x) => x.resource === 'configmaps')?.shortNames).not.toContain('stalecm');
  });

  it("reads the discovery cache the real kubectl wrote when it has none of its own, and keeps it with kubectl's age", async () => {
    rmSync(file, { force: true });
    const kubectl = await execProgram(join(cluster().binDir, 'kubectl'), ['get', 'configmaps', '-n', ns, '--kubeconfig', cluster().kubeconfigPath], {
      env: { ...process.env, KUBECACHEDIR: kubeCache },
    });
    expect(kubectl.code, kubectl.stderr).toBe(0);
    const written = filesUnder(kubectlDiscoveryDir(kube.connection.server, { KUBECACHEDIR: kubeCache }));
    expect(written.some((f) => f.endsWith('servergroups.json'))).toBe(true);
    expect(written.some((f) => f.endsWith(join('apps', 'v1', 'serverresources.json')))).toBe(true);

    // A short name only kubectl's files have: only a run that reads them resolves it.
    const core = join(kubectlDiscoveryDir(kube.connection.server, { KUBECACHEDIR: kubeCache }), 'v1', 'serverresources.json');
    const mtime = statSync(core).mtime;
    const list = JSON.parse(readFileSync(core, 'utf8')) as { resources: { name: string; shortNames?: string[] }[] };
    const configmaps = list.resources.find((r) => r.name === 'configmaps')!;
    configmaps.shortNames = [...(configmaps.shortNames ?? []), 'kubectlcm'];
    writeFileSync(core, JSON.stringify(list));
    utimesSync(core, mtime, mtime);
    const oldest = Math.min(...written.filter((f) => f.endsWith('.json')).map((f) => statSync(f).mtimeMs));

    const r = await plugin('cache', 'kubectlcm');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('settings');
    // Kept in the tool's own file, as old as kubectl's oldest: trusted no longer than kubectl's.
    expect(kept().savedAtMs).toBe(oldest);
    expect(kept().resources.find((x) => x.resource === 'configmaps')?.shortNames).toContain('kubectlcm');
    expect(kept().resources.find((x) => x.resource === 'deployments')).toMatchObject({ group: 'apps', version: 'v1' });
  });
});
