/**
 * `kubectl informer-trace cache` against the real control plane: its output equals `kubectl get`
 * and a fresh LIST (table, -o json --keys-only, -o json), --index/--by-index, --for, -l; Secrets
 * stay metadata-only; bad input fails with one clear line and the exit code from src/exit-codes.ts.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProgram } from '../../src/cli/run.js';
import type { CommandIO } from '../../src/cli/io.js';
import { readerNamespace } from '../../tools/cluster/launcher.js';
import { createInformerTraceProgram } from '../../src/commands/informer-trace.js';
import { ExitCode } from '../../src/exit-codes.js';
import type { KubeObject } from '../../src/kube/index.js';
import { adminKube, cluster, createNamespace, deleteNamespace, eventually, runCli, uniqueName, type CliResult } from './helpers.js';

const run = promisify(execFile);
const kube = adminKube();
const ns = uniqueName('it-cache');
const COLORS = ['red', 'blue', 'red', 'green'];
/** Something that must never reach the output: the Secrets' data. */
const secretValue = `hunter2-${Date.now().toString(36)}`;

interface CacheJson {
  apiVersion: string;
  kind: 'List';
  metadata: { resourceVersion: string };
  items: KubeObject[];
  indexes?: Record<string, Record<string, string[]>>;
}
interface KeysJson {
  metadata: { resourceVersion: string };
  items: { key: string; resourceVersion: string }[];
  indexes?: Record<string, Record<string, string[]>>;
}

function cache(args: string[], kubeconfig = cluster().kubeconfigPath): Promise<CliResult> {
  return runCli(createInformerTraceProgram, ['cache', ...args, '--kubeconfig', kubeconfig]);
}

async function kubectl(args: string[], kubeconfig = cluster().kubeconfigPath): Promise<string> {
  const r = await run(join(cluster().binDir, 'kubectl'), ['--kubeconfig', kubeconfig, ...args]);
  return r.stdout;
}

async function freshList(path: string, labelSelector?: string): Promise<{ metadata: { resourceVersion: string }; items: KubeObject[] }> {
  return kube.client.json(path, { query: { labelSelector } });
}

const keyOf = (o: KubeObject): string => `${o.metadata.namespace}/${o.metadata.name}`;
const keysOf = (items: KubeObject[]): { key: string; resourceVersion: string }[] =>
  items.map((o) => ({ key: keyOf(o), resourceVersion: o.metadata.resourceVersion! }));
const customColumns = 'custom-columns=NAMESPACE:.metadata.namespace,NAME:.metadata.name,RESOURCEVERSION:.metadata.resourceVersion';

/** One "error:" line, no stack trace, nothing on stdout. */
function expectOneErrorLine(r: CliResult): string {
  const errors = r.stderr.split('\n').filter((l) => l.startsWith('error:'));
  expect(errors, r.stderr).toHaveLength(1);
  expect(r.stderr).not.toMatch(/^\s+at /m);
  expect(r.stderr).not.toMatch(/relisting|backoff/);
  expect(r.stdout).toBe('');
  return errors[0]!;
}

describe('kubectl informer-trace cache on the real control plane', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'it-cache-'));

  beforeAll(async () => {
    await createNamespace(kube, ns);
    await Promise.all(
      Array.from({ length: 12 }, (_, i) => {
        const color = COLORS[i % COLORS.length]!;
        const labels: Record<string, string> = i % 5 === 4 ? {} : { color };
        return kube.client.json(`/api/v1/namespaces/${ns}/configmaps`, {
          method: 'POST',
          body: { metadata: { name: `cm-${i}${i % 3 === 0 ? '-x' : ''}`, labels }, data: { y: `y${i % 3}` } },
        });
      }),
    );
    // Secrets: one plain, one made by `kubectl apply`, which copies the whole manifest (data
    // included) into the last-applied-configuration annotation.
    await kube.client.json(`/api/v1/namespaces/${ns}/secrets`, {
      method: 'POST',
      body: { metadata: { name: 's-plain' }, stringData: { password: secretValue } },
    });
    const manifest = join(tmp, 'secret.json');
    writeFileSync(
      manifest,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 's-applied', namespace: ns, labels: { app: 'db' } },
        stringData: { password: secretValue },
      }),
    );
    await kubectl(['apply', '-f', manifest]);
  });

  afterAll(async () => {
    rmSync(tmp, { recursive: true, force: true });
    await deleteNamespace(kube, ns);
  });

  it('table output equals kubectl get, row for row (keys, resourceVersions, order)', async () => {
    // The root CA ConfigMap appears when kube-controller-manager gets to the namespace.
    await eventually('kube-root-ca.crt', () => kube.client.json(`/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`).then(() => true));
    const r = await cache(['configmaps', '-n', ns, '--keys-only']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(await kubectl(['get', 'configmaps', '-n', ns, '-o', customColumns]));
    expect(r.stderr).toMatch(/^synced 13 configmaps in /m);

    // Without --keys-only there is an AGE column, and the names are kubectl get's NAME column.
    const full = await cache(['cm', '-n', ns]);
    expect(full.code).toBe(0);
    const rows = full.stdout.trim().split('\n');
    expect(rows[0]!.split(/\s+/)).toEqual(['NAMESPACE', 'NAME', 'RESOURCEVERSION', 'AGE']);
    const names = rows.slice(1).map((l) => l.split(/\s+/)[1]);
    const kubectlNames = (await kubectl(['get', 'cm', '-n', ns]))
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(/\s+/)[0]);
    expect(names).toEqual(kubectlNames);
    for (const row of rows.slice(1)) expect(row.split(/\s+/)[3]).toMatch(/^\d+[smhd]$/);
  });

  it('-o name equals kubectl get -o name, in the core group and in a named one', async () => {
    const cms = await cache(['configmaps', '-n', ns, '-o', 'name']);
    expect(cms.code).toBe(0);
    expect(cms.stdout).toMatch(/^configmap\/cm-0-x\n/);
    expect(cms.stdout).toBe(await kubectl(['get', 'configmaps', '-n', ns, '-o', 'name']));
    const leases = await cache(['leases', '-n', 'kube-system', '-o', 'name']);
    expect(leases.code).toBe(0);
    expect(leases.stdout).toContain('lease.coordination.k8s.io/kube-controller-manager\n');
    expect(leases.stdout).toBe(await kubectl(['get', 'leases', '-n', 'kube-system', '-o', 'name']));
    // None selected: kubectl's line on stderr, nothing on stdout.
    const none = await cache(['configmaps', '-n', ns, '-l', 'color=none', '-o', 'name']);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain(`No resources found in ${ns} namespace.`);
  });

  it('-o json --keys-only and -o json equal a fresh LIST', async () => {
    const list = await freshList(`/api/v1/namespaces/${ns}/configmaps`);
    const keys = await cache(['cm', '-n', ns, '-o', 'json', '--keys-only']);
    expect(keys.code).toBe(0);
    const k = JSON.parse(keys.stdout) as KeysJson;
    expect(k.items).toEqual(keysOf(list.items));
    expect(Number(k.metadata.resourceVersion)).toBeGreaterThanOrEqual(Math.max(...list.items.map((o) => Number(o.metadata.resourceVersion))));

    const full = await cache(['cm', '-n', ns, '-o', 'json']);
    expect(full.code).toBe(0);
    const j = JSON.parse(full.stdout) as CacheJson;
    // The informer drops managedFields and gives list items the kind and apiVersion a watch event has.
    const expected = list.items.map((o) => {
      const { managedFields: _m, ...metadata } = o.metadata;
      return { ...o, apiVersion: 'v1', kind: 'ConfigMap', metadata };
    });
    expect(j.items).toEqual(expected);
    expect(j.items.find((o) => o.metadata.name === 'cm-1')?.data).toEqual({ y: 'y1' });
  });

  it('-l selects like kubectl get -l; --index and --by-index group like a fresh LIST', async () => {
    const red = await cache(['cm', '-n', ns, '-l', 'color=red', '--keys-only']);
    expect(red.code).toBe(0);
    expect(red.stdout).toBe(await kubectl(['get', 'cm', '-n', ns, '-l', 'color=red', '-o', customColumns]));
    expect(red.stdout.trim().split('\n')).toHaveLength(1 + 5);

    const r = await cache([
      'cm',
      '-n',
      ns,
      '--index',
      'color=metadata.labels.color',
      '--index',
      "y=data['y']",
      '--by-index',
      'color=blue',
      '-o',
      'json',
      '--keys-only',
    ]);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout) as KeysJson;
    const list = await freshList(`/api/v1/namespaces/${ns}/configmaps`);
    expect(j.items).toEqual(keysOf(list.items.filter((o) => o.metadata.labels?.color === 'blue')));
    const group = (value: (o: KubeObject) => string | undefined): Record<string, string[]> => {
      const out: Record<string, string[]> = {};
      for (const o of list.items) {
        const v = value(o);
        if (v !== undefined) (out[v] ??= []).push(keyOf(o));
      }
      for (const v of Object.keys(out)) out[v]!.sort();
      return out;
    };
    expect(j.indexes?.color).toEqual(group((o) => o.metadata.labels?.color));
    expect(j.indexes?.y).toEqual(group((o) => (o.data as Record<string, string> | undefined)?.y));
    expect(Object.keys(j.indexes?.color ?? {}).sort()).toEqual(['blue', 'green', 'red']);

    // A built-in index, in the table output.
    const byNs = await cache(['cm', '-A', '--by-index', `namespace=${ns}`, '--keys-only']);
    expect(byNs.code).toBe(0);
    expect(byNs.stdout).toBe(await kubectl(['get', 'cm', '-n', ns, '-o', customColumns]));

    // A value nobody has: exit 1 (a check that found nothing) and the values there are.
    const none = await cache(['cm', '-n', ns, '--index', 'color=metadata.labels.color', '--by-index', 'color=purple']);
    expect(none.code).toBe(ExitCode.CheckFailed);
    expect(none.stderr).toMatch(/no configmaps under index color=purple; values present: blue, green, red/);
  });

  it('--for keeps watching: writes made during the window are in the output, exactly as a fresh LIST has them', async () => {
    const stderr = new PassThrough();
    const stdout = new PassThrough();
    let out = '';
    let err = '';
    stdout.on('data', (d: Buffer) => (out += d.toString()));
    let watching: () => void;
    const watchingStarted = new Promise<void>((resolve) => (watching = resolve));
    stderr.on('data', (d: Buffer) => {
      err += d.toString();
      if (err.includes('watching for')) watching();
    });
    const io: CommandIO = { stdout, stderr, env: { ...process.env, CI: 'true' }, signal: new AbortController().signal };
    const started = Date.now();
    const running = runProgram(
      createInformerTraceProgram,
      ['cache', 'cm', '-n', ns, '--for', '4s', '-o', 'json', '--keys-only', '--kubeconfig', cluster().kubeconfigPath],
      io,
    );
    await watchingStarted;
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    await kube.client.json(path, { method: 'POST', body: { metadata: { name: 'during-window' } } });
    await kube.client.json(`${path}/cm-1`, { method: 'PATCH', body: { data: { y: 'changed' } }, contentType: 'application/merge-patch+json' });
    await kube.client.json(`${path}/cm-2`, { method: 'DELETE' });
    const code = await running;
    expect(code, err).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(4000);
    const j = JSON.parse(out) as KeysJson;
    const list = await freshList(path);
    expect(j.items).toEqual(keysOf(list.items));
    const keys = j.items.map((i) => i.key);
    expect(keys).toContain(`${ns}/during-window`);
    expect(keys).not.toContain(`${ns}/cm-2`);
  });

  it('Secrets are metadata-only: no data, not even in the last-applied annotation, in any output', async () => {
    const list = await freshList(`/api/v1/namespaces/${ns}/secrets`);
    // The server does hold the data, and kubectl apply did copy it into the annotation.
    expect(JSON.stringify(list)).toContain(secretValue);
    for (const args of [['-o', 'json'], ['-o', 'yaml'], [], ['-o', 'json', '--keys-only']]) {
      const r = await cache(['secrets', '-n', ns, ...args]);
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(/secrets are watched as metadata only/);
      expect(r.stdout).not.toContain(secretValue);
      expect(r.stdout).not.toContain(Buffer.from(secretValue).toString('base64'));
      expect(r.stdout).not.toMatch(/last-applied-configuration/);
      if (args[0] === '-o' && args[1] === 'json' && args.length === 2) {
        const j = JSON.parse(r.stdout) as CacheJson;
        expect(j.items.map((o) => o.metadata.name).sort()).toEqual(list.items.map((o) => o.metadata.name).sort());
        for (const item of j.items) {
          expect(item).not.toHaveProperty('data');
          expect(item).not.toHaveProperty('stringData');
          expect(item.kind).toBe('PartialObjectMetadata');
          expect(item.metadata.resourceVersion).toBe(list.items.find((o) => o.metadata.name === item.metadata.name)?.metadata.resourceVersion);
        }
        expect(j.items.find((o) => o.metadata.name === 's-applied')?.metadata.labels).toEqual({ app: 'db' });
      }
    }
  });

  describe('bad input', () => {
    it('an unknown resource: exit 2, naming close matches', async () => {
      const r = await cache(['confgimaps', '-n', ns]);
      expect(r.code).toBe(ExitCode.Usage);
      expect(expectOneErrorLine(r)).toBe('error: the server does not have a resource type "confgimaps"');
      expect(r.stderr).toMatch(/^hint: did you mean .*"configmaps"/m);
    });

    it('a forbidden list: exit 3 naming verb, resource and namespace, with a kubectl auth can-i line that says no', async () => {
      const r = await cache(['cm', '-n', ns], cluster().noAccessKubeconfig);
      expect(r.code).toBe(ExitCode.Cluster);
      expect(expectOneErrorLine(r)).toBe(`error: forbidden: user "it-noaccess" may not list configmaps in namespace ${ns} (403)`);
      const hint = /^hint: confirm with: (kubectl auth can-i .*)$/m.exec(r.stderr)?.[1];
      expect(hint).toBe(`kubectl auth can-i list configmaps -n ${ns}`);
      // The suggested line, run as that user, really answers "no".
      const canI = await kubectl([...hint!.split(' ').slice(1)], cluster().noAccessKubeconfig).catch(
        (e: { stdout: string; code: number }) => `${e.stdout.trim()} (exit ${e.code})`,
      );
      expect(canI).toBe('no (exit 1)');

      // The namespace reader may read its namespace, not all of them.
      const own = await cache(['cm', '-n', readerNamespace, '--keys-only'], cluster().namespaceReaderKubeconfig);
      expect(own.code).toBe(0);
      expect(own.stdout).toContain('kube-root-ca.crt');
      const all = await cache(['cm', '-A'], cluster().namespaceReaderKubeconfig);
      expect(all.code).toBe(ExitCode.Cluster);
      expect(expectOneErrorLine(all)).toBe('error: forbidden: user "it-ns-reader" may not list configmaps (403)');
      expect(all.stderr).toContain('hint: confirm with: kubectl auth can-i list configmaps --all-namespaces');
    });

    it("an invalid label or field selector: the API server's 400 becomes one line naming the flag, exit 2 (usage)", async () => {
      const label = await cache(['cm', '-n', ns, '-l', 'color in red']);
      expect(label.code).toBe(ExitCode.Usage);
      expect(expectOneErrorLine(label)).toMatch(/^error: invalid -l\/--selector "color in red": the API server says: .*unable to parse requirement/);
      expect(label.stderr).toMatch(/^hint: label selectors look like/m);

      const field = await cache(['cm', '-n', ns, '--field-selector', 'data.y=y1']);
      expect(field.code).toBe(ExitCode.Usage);
      expect(expectOneErrorLine(field)).toMatch(/^error: invalid --field-selector "data.y=y1": the API server says: "data.y" is not a known field selector/);
    });

    it('an invalid field path: one line, exit 2, before any request is sent', async () => {
      // A server that does not exist: the flag is refused before anything is sent.
      const r = await runCli(createInformerTraceProgram, [
        'cache',
        'cm',
        '--index',
        "x=metadata.labels['app",
        '--server',
        'https://127.0.0.1:1',
        '--insecure-skip-tls-verify',
      ]);
      expect(r.code).toBe(ExitCode.Usage);
      expect(expectOneErrorLine(r)).toMatch(/^error: --index x: invalid field path "metadata\.labels\['app": unclosed quote ' at character \d+/);
      expect(r.stderr).not.toMatch(/ECONNREFUSED|unreachable/);
      const notPath = await cache(['cm', '--index', 'nameonly']);
      expect(notPath.code).toBe(ExitCode.Usage);
      expect(expectOneErrorLine(notPath)).toBe('error: --index "nameonly" is not NAME=FIELD.PATH');
    });
  });
});
