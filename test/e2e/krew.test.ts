/**
 * The krew manifests proven with krew itself: krew v0.4.3 and krew-index's validator
 * (validate-krew-manifest, the same module) built from the Go module proxy (test/fixtures/krew), the
 * linux/amd64 archive and both manifests built as `npm run package` builds them, then:
 * - each manifest passes validate-krew-manifest as krew-index's CI runs it on plugins/<name>.yaml:
 *   structure (apiVersion, semver version, platforms with os/arch selectors, sha256, bin), no
 *   overlapping selectors, and an install of each of its platforms (linux/amd64 here) from its uri
 *   (served from 127.0.0.1: the copy's uri is the only change) that leaves a LICENSE; the
 *   four-platform manifests a release makes pass the structural part;
 * - `kubectl krew install --manifest=… --archive=…` installs both plugins from the one archive (krew
 *   checks the archive's sha256 against the manifest: a wrong one is refused), with `kubectl krew`
 *   itself a plugin on PATH and KREW_ROOT in a temporary folder;
 * - kubectl finds both in krew's bin and they run against the local cluster with no Node.js on PATH;
 * - `kubectl krew list` shows them (after `kubectl krew update` from a local index laid out as
 *   krew-index is), and `kubectl krew uninstall` removes them, leaving krew's store, bin and receipts
 *   empty.
 * No network: --archive makes krew read the file instead of downloading it.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import type { DeltaLine, SyncedLine } from '../../src/view/cache-view.js';
import type { LeaseWatchView } from '../../src/view/lease-view.js';
import { krewManifest } from '../../tools/packaging/krew.js';
import { archiveName as archiveOf, TARGETS } from '../../tools/packaging/targets.js';
import { repoRoot } from '../../tools/root.js';
import { adminKube, cluster, createNamespace, deleteNamespace, execProgram, ndjsonLines, uniqueName, type ExecResult } from './helpers.js';
import { buildFixture } from './operators.js';

const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string; homepage: string };
const version = `v${pkg.version}`;
/** Everything this file makes, removed at the end: the package build, krew's root, the index. */
const work = mkdtempSync(join(tmpdir(), 'informer-trace-krew-'));
const out = join(work, 'package');
const archiveName = `kubectl-informer-trace_${version}_linux_amd64.tar.gz`;
const archive = join(out, archiveName);
const krewRoot = join(work, 'krew-root');
/** kubectl, kubectl-krew and the few tools krew and the lease-watch wrapper use: no node. */
const tools = join(work, 'tools');
/** A plugin index laid out as krew-index is (plugins/<name>.yaml), in git, as krew reads an index. */
const index = join(work, 'index');

const PLUGINS = [
  { name: 'informer-trace', manifest: 'krew-manifest.yaml', bin: 'kubectl-informer_trace' },
  { name: 'lease-watch', manifest: 'krew-manifest-lease-watch.yaml', bin: 'kubectl-lease_watch' },
] as const;

const kube = adminKube();
const ns = uniqueName('it-krew');

/** The ConfigMaps the plugin is to list: key → resourceVersion as created. */
const configMaps = new Map<string, string>();
let krew: string;
let validator: string;
let server: Server;

interface Manifest {
  apiVersion: string;
  metadata: { name: string };
  spec: { version: string; platforms: { selector: { matchLabels: Record<string, string> }; uri: string; sha256: string; bin: string }[] };
}

function env(more: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    PATH: [tools, join(krewRoot, 'bin')].join(delimiter),
    HOME: join(work, 'home'),
    KREW_ROOT: krewRoot,
    KREW_NO_UPGRADE_CHECK: '1',
    KREW_DEFAULT_INDEX_URI: index,
    KUBECONFIG: cluster().kubeconfigPath,
    ...more,
  };
}

function kubectl(args: readonly string[], more: NodeJS.ProcessEnv = {}): Promise<ExecResult> {
  return execProgram(join(tools, 'kubectl'), args, { env: env(more), cwd: work });
}

/** validate-krew-manifest on one file, as krew-index's CI runs it; its log is on stderr. */
function validate(file: string, ...flags: string[]): Promise<ExecResult> {
  return execProgram(validator, ['-manifest', file, ...flags], { env: env(), cwd: work, timeoutMs: 5 * 60_000 });
}

/** The manifest written as krew-index holds it, plugins/<name>.yaml under `dir`, with `edit` applied. */
function asIndexEntry(dir: string, source: string, name: string, edit: (m: Manifest) => void = () => undefined): string {
  const m = parse(readFileSync(source, 'utf8')) as Manifest;
  edit(m);
  mkdirSync(join(dir, 'plugins'), { recursive: true });
  const file = join(dir, 'plugins', `${name}.yaml`);
  writeFileSync(file, stringify(m, { lineWidth: 0 }));
  return file;
}

/** A MicroTime, as a Lease's times are: microseconds. */
const microNow = (): string => new Date().toISOString().replace('Z', '000Z');

function linkTool(name: string, target?: string): void {
  const found = target ?? ['/usr/bin', '/bin'].map((d) => join(d, name)).find((p) => existsSync(p));
  if (!found) throw new Error(`no ${name} in /usr/bin or /bin`);
  symlinkSync(found, join(tools, name));
}

function filesUnder(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort() : [];
}

describe('krew installs both plugins from the release archive', () => {
  beforeAll(async () => {
    const packaged = promisify(execFile)(
      process.execPath,
      [join(repoRoot, 'build', 'tools', 'packaging', 'cli.js'), '--platforms', 'linux-amd64', '--out', out],
      {
        cwd: repoRoot,
        timeout: 9 * 60_000,
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    const fixture = join(repoRoot, 'test', 'fixtures', 'krew', 'build.sh');
    [krew, validator] = await Promise.all([buildFixture(fixture, 'krew'), buildFixture(fixture, 'validate-krew-manifest', ['validate-krew-manifest'])]);
    await packaged;

    mkdirSync(tools);
    mkdirSync(join(work, 'home'));
    linkTool('kubectl', join(cluster().binDir, 'kubectl'));
    // kubectl runs `kubectl krew` as the plugin kubectl-krew, as krew's own install links it.
    linkTool('kubectl-krew', krew);
    linkTool('git'); // krew reads an index as a git clone
    linkTool('readlink'); // the lease-watch wrapper follows krew's symlink with it

    for (const p of PLUGINS) asIndexEntry(index, join(out, p.manifest), p.name);
    const git = (...args: string[]): Promise<unknown> =>
      promisify(execFile)('git', ['-c', 'user.name=e2e', '-c', 'user.email=e2e@localhost', ...args], { cwd: index, env: env() });
    await git('init', '-q');
    await git('add', '.');
    await git('commit', '-q', '-m', 'informer-trace and lease-watch');

    server = createServer((req, res) => {
      if (req.url === `/${archiveName}`) {
        res.writeHead(200, { 'content-type': 'application/gzip' });
        res.end(readFileSync(archive));
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

    await createNamespace(kube, ns);
    for (const name of ['krew-a', 'krew-b']) {
      const created = await kube.client.json<{ metadata: { resourceVersion: string } }>(`/api/v1/namespaces/${ns}/configmaps`, {
        method: 'POST',
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { app: 'krew-e2e' } }, data: { plugin: name } },
      });
      configMaps.set(`${ns}/${name}`, created.metadata.resourceVersion);
    }
    await kube.client.json(`/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`, {
      method: 'POST',
      body: {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: 'krew-leader' },
        spec: { holderIdentity: 'krew-e2e-holder', leaseDurationSeconds: 3600, acquireTime: microNow(), renewTime: microNow() },
      },
    });
  }, 12 * 60_000);

  afterAll(async () => {
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    await deleteNamespace(kube, ns);
    rmSync(work, { recursive: true, force: true });
  });

  it("the manifests pass krew-index's validate-krew-manifest as plugins/<name>.yaml, an install of each platform included", async () => {
    const port = (server.address() as AddressInfo).port;
    for (const p of PLUGINS) {
      const m = parse(readFileSync(join(out, p.manifest), 'utf8')) as Manifest;
      expect(m.apiVersion).toBe('krew.googlecontainertools.github.com/v1alpha2');
      expect(m.spec.version).toBe(version);
      expect(m.spec.platforms.map((x) => [x.selector.matchLabels, x.bin])).toEqual([[{ os: 'linux', arch: 'amd64' }, p.bin]]);

      // Structure, as written: the file krew-index would hold.
      const structural = await validate(join(index, 'plugins', `${p.name}.yaml`), '-skip-install');
      expect(structural.code, structural.stderr).toBe(0);
      expect(structural.stderr).toContain('structural validation OK');
      expect(structural.stderr).toContain('no overlapping spec.platform[].selector');

      // The whole check, install included: krew downloads the uri, checks its sha256, extracts it,
      // links the bin and finds a LICENSE. Only the uri differs, to fetch from here.
      const served = asIndexEntry(join(work, 'served'), join(out, p.manifest), p.name, (x) => {
        for (const platform of x.spec.platforms) platform.uri = `http://127.0.0.1:${port}/${archiveName}`;
      });
      const full = await validate(served);
      expect(full.code, full.stderr).toBe(0);
      expect(full.stderr).toContain('installed  spec.platforms[0]');
      expect(full.stderr).toContain('all 1 spec.platforms installed fine');

      // The four-platform manifests a release makes (only linux/amd64's archive is built here: the others' checksums stand in).
      const every = join(work, 'every-platform', p.manifest);
      mkdirSync(join(work, 'every-platform'), { recursive: true });
      const archives = TARGETS.map((t) => ({
        target: t,
        file: archiveOf(pkg.version, t),
        sha256: 'a'.repeat(64),
        kind: t.node ? ('sea' as const) : ('script' as const),
        nodeVersion: t.node?.version ?? null,
      }));
      writeFileSync(
        every,
        krewManifest(p.name, archives, { version: pkg.version, homepage: pkg.homepage, releaseUrl: `${pkg.homepage}/releases/download/${version}` }),
      );
      const release = await validate(asIndexEntry(join(work, 'release'), every, p.name), '-skip-install');
      expect(release.code, release.stderr).toBe(0);
      expect(release.stderr).toContain('all spec.platform[] items are used');
    }
    // The validator is strict about the name: a release asset's file name is not a plugin name.
    const asAsset = await validate(join(out, 'krew-manifest.yaml'), '-skip-install');
    expect(asAsset.code).not.toBe(0);
    expect(asAsset.stderr).toContain('plugin should be named "krew-manifest", not "informer-trace"');
  });

  it('refuses an archive whose sha256 is not the one in the manifest', async () => {
    const wrong = asIndexEntry(join(work, 'wrong-sha'), join(out, 'krew-manifest.yaml'), 'informer-trace', (m) => {
      for (const platform of m.spec.platforms) platform.sha256 = '0'.repeat(64);
    });
    const elsewhere = join(work, 'krew-root-wrong-sha');
    const r = await kubectl(['krew', 'install', `--manifest=${wrong}`, `--archive=${archive}`], { KREW_ROOT: elsewhere });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/checksum does not match/);
    expect(filesUnder(join(elsewhere, 'store'))).toEqual([]);
  });

  it('kubectl krew install --manifest --archive installs both plugins from the one archive', async () => {
    for (const p of PLUGINS) {
      const r = await kubectl(['krew', 'install', `--manifest=${join(out, p.manifest)}`, `--archive=${archive}`]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(`Installed plugin: ${p.name}`);
      expect(r.stderr).toContain(`kubectl ${p.name}`);
      // krew's PATH check: its bin is on PATH here, so no setup instructions.
      expect(r.stderr).not.toContain('To be able to run kubectl plugins');
    }
    expect(filesUnder(join(krewRoot, 'bin'))).toEqual(['kubectl-informer_trace', 'kubectl-lease_watch']);
    expect(filesUnder(join(krewRoot, 'receipts'))).toEqual(['informer-trace.yaml', 'lease-watch.yaml']);
    for (const p of PLUGINS) {
      expect(filesUnder(join(krewRoot, 'store', p.name, version))).toEqual(['LICENSE', 'LICENSE.node', 'kubectl-informer_trace', 'kubectl-lease_watch']);
    }
  });

  it("kubectl finds both in krew's bin, and they run against the cluster with no Node.js on PATH", async () => {
    for (const d of env().PATH!.split(delimiter)) expect(existsSync(join(d, 'node')), `${d} holds a node`).toBe(false);
    const plugins = await kubectl(['plugin', 'list']);
    expect(plugins.code, plugins.stderr).toBe(0);
    expect(plugins.stdout).toContain(join(krewRoot, 'bin', 'kubectl-informer_trace'));
    expect(plugins.stdout).toContain(join(krewRoot, 'bin', 'kubectl-lease_watch'));

    const versionOut = await kubectl(['informer-trace', '--version']);
    expect(versionOut.stdout.trim()).toBe(pkg.version);

    const cache = await kubectl(['informer-trace', 'cache', 'configmaps', '-n', ns, '-l', 'app=krew-e2e', '-o', 'ndjson']);
    expect(cache.code, cache.stderr).toBe(0);
    const lines = ndjsonLines<DeltaLine | SyncedLine | { kind: string }>(cache.stdout);
    const deltas = lines.filter((l): l is DeltaLine => l.kind === 'delta');
    // The initial list, as client-go delivers it: Replaced deltas, each object as created.
    expect(deltas.map((d) => [d.type, d.key, d.resourceVersion, d.initial])).toEqual(
      [...configMaps].map(([key, resourceVersion]) => ['Replaced', key, resourceVersion, true]),
    );
    const synced = lines.find((l): l is SyncedLine => l.kind === 'synced');
    expect(synced?.objects).toBe(2);

    const lease = await kubectl(['lease-watch', `${ns}/krew-leader`, '-o', 'json']);
    expect(lease.code, lease.stderr).toBe(0);
    const view = JSON.parse(lease.stdout) as LeaseWatchView;
    expect(view.synced).toBe(true);
    expect(view.leases.map((l) => [`${l.namespace}/${l.name}`, l.holder, l.leaseDurationSeconds])).toEqual([[`${ns}/krew-leader`, 'krew-e2e-holder', 3600]]);
  });

  it('kubectl krew list shows both, and kubectl krew info reads them from an index laid out as krew-index', async () => {
    // list needs an initialized index: a clone of the local one, as `kubectl krew update` clones krew-index.
    const update = await kubectl(['krew', 'update']);
    expect(update.code, update.stderr).toBe(0);
    expect(update.stderr).toContain(`Adding "default" plugin index from ${index}`);
    const list = await kubectl(['krew', 'list']);
    expect(list.code, list.stderr).toBe(0);
    // Installed from --manifest, not from an index: krew calls them detached.
    expect(list.stdout.trim().split('\n')).toEqual(['detached/informer-trace', 'detached/lease-watch']);
    const info = await kubectl(['krew', 'info', 'lease-watch']);
    expect(info.code, info.stderr).toBe(0);
    expect(info.stdout).toContain(`VERSION: ${version}`);
    expect(info.stdout).toContain(`/${archiveName}`);
  });

  it('kubectl krew uninstall removes both, leaving nothing in its store, bin or receipts', async () => {
    const r = await kubectl(['krew', 'uninstall', 'informer-trace', 'lease-watch']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Uninstalled plugin: informer-trace');
    expect(r.stderr).toContain('Uninstalled plugin: lease-watch');
    for (const dir of ['store', 'bin', 'receipts']) expect(filesUnder(join(krewRoot, dir)), dir).toEqual([]);
    const plugins = await kubectl(['plugin', 'list']);
    expect(plugins.stdout).not.toContain('kubectl-informer_trace');
    expect(plugins.stdout).not.toContain('kubectl-lease_watch');
    const list = await kubectl(['krew', 'list']);
    expect(list.stdout.trim()).toBe('');
  });
});
