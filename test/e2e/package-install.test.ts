/**
 * The npm package as a user installs it: `npm pack` of the built tree, then `npm install -g` of the
 * tarball into a prefix of its own, --offline with an empty npm cache, so only what the tarball holds
 * can be installed (dist/kubectl-informer-trace.mjs and its chunks hold every package the program
 * runs, the ones it imports lazily too). Then both plugins run through kubectl's plugin discovery
 * against the local cluster, from a folder outside the checkout, where hints must not name the
 * repository's npm scripts; and `npx kubectl-informer-trace` picks the informer-trace plugin out of
 * the three bins.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cluster } from './helpers.js';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string };
/** The tarball, the npm cache, the prefix; also the folder the plugins run in, outside the checkout. */
const work = mkdtempSync(join(tmpdir(), 'informer-trace-npm-'));
const prefix = join(work, 'prefix');
const bin = join(prefix, 'bin');
const node = dirname(process.execPath);
const env = {
  ...process.env,
  PATH: [bin, node, '/usr/bin', '/bin'].join(delimiter),
  npm_config_cache: join(work, 'npm-cache'),
  npm_config_update_notifier: 'false',
  CI: 'true',
};

interface Packed {
  filename: string;
  files: { path: string }[];
}

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `file` in the work folder (or `cwd`) with `env` and `more`; resolves with its exit code instead of failing. */
function exec(file: string, args: string[], more: NodeJS.ProcessEnv = {}, cwd = work): Promise<Result> {
  return run(file, args, { cwd, env: { ...env, ...more }, timeout: 5 * 60_000, maxBuffer: 64 * 1024 * 1024 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (e: { code?: unknown; stdout?: string; stderr?: string; message?: string }) => ({
      code: typeof e.code === 'number' ? e.code : -1,
      stdout: e.stdout ?? '',
      stderr: e.stderr ?? e.message ?? '',
    }),
  );
}

/** The packages under a node_modules folder, nested ones included: `name@version`. */
function installed(modules: string): string[] {
  if (!existsSync(modules)) return [];
  const found: string[] = [];
  for (const entry of readdirSync(modules)) {
    if (entry.startsWith('.')) continue;
    const dirs = entry.startsWith('@') ? readdirSync(join(modules, entry)).map((n) => join(modules, entry, n)) : [join(modules, entry)];
    for (const dir of dirs) {
      const manifest = join(dir, 'package.json');
      if (!existsSync(manifest)) continue;
      const { name, version } = JSON.parse(readFileSync(manifest, 'utf8')) as { name: string; version: string };
      found.push(`${name}@${version}`, ...installed(join(dir, 'node_modules')));
    }
  }
  return found;
}

const kubectl = (): string => join(cluster().binDir, 'kubectl');

let packed: Packed;
let install: Result;

describe('npm install -g of the packed package', () => {
  beforeAll(async () => {
    // dist/ is built already (the test run builds first): --ignore-scripts skips prepack's build.
    const pack = await exec('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {}, root);
    expect(pack.code, pack.stderr).toBe(0);
    packed = (JSON.parse(pack.stdout) as Packed[])[0]!;
    install = await exec('npm', ['install', '-g', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', join(work, packed.filename)]);
  }, 6 * 60_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('the tarball holds what runs: the two launchers and what they share, the bundle they load with its chunks, the manifest, LICENSE and README', () => {
    expect(packed.filename).toBe(`${pkg.name}-${pkg.version}.tgz`);
    const files = packed.files.map((f) => f.path).sort();
    const chunks = files.filter((f) => f.startsWith('dist/chunks/'));
    expect(files.filter((f) => !chunks.includes(f))).toEqual([
      'LICENSE',
      'README.md',
      'bin/kubectl-informer_trace',
      'bin/kubectl-lease_watch',
      'bin/run.mjs',
      'dist/kubectl-informer-trace.mjs',
      'package.json',
    ]);
    // Named by esbuild with a hash of their content: the build's chunks, all of them, nothing else.
    for (const chunk of chunks) expect(chunk).toMatch(/^dist\/chunks\/[\w-]+-[A-Z0-9]{8}\.mjs$/);
    expect(chunks).toEqual(
      readdirSync(join(root, 'dist', 'chunks'))
        .map((f) => `dist/chunks/${f}`)
        .sort(),
    );
    expect(chunks.length).toBeGreaterThan(0);
  });

  it('installs offline from the tarball alone, without install scripts or a warning about them', () => {
    expect(install.code, install.stderr).toBe(0);
    const output = install.stdout + install.stderr;
    expect(output).not.toMatch(/allow-?scripts|install-scripts|install scripts?/i);
    const manifest = JSON.parse(readFileSync(join(prefix, 'lib', 'node_modules', pkg.name, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
    for (const script of ['preinstall', 'install', 'postinstall', 'prepare']) expect(manifest.scripts?.[script], script).toBeUndefined();
  });

  it('is a handful of packages, under 15 MB on disk', async () => {
    const packages = installed(join(prefix, 'lib', 'node_modules'));
    expect(packages).toContain(`${pkg.name}@${pkg.version}`);
    expect(packages.length, packages.join(', ')).toBeLessThanOrEqual(5);
    const du = await exec('du', ['-sk', prefix]);
    expect(Number(du.stdout.split(/\s/)[0]) * 1024).toBeLessThan(15 * 1000 * 1000);
  });

  it('kubectl finds both plugins on PATH and runs them against the cluster', async () => {
    const KUBECONFIG = cluster().kubeconfigPath;
    expect(readdirSync(bin).sort()).toEqual(['kubectl-informer-trace', 'kubectl-informer_trace', 'kubectl-lease_watch']);
    const plugins = await exec(kubectl(), ['plugin', 'list', '--name-only']);
    expect(plugins.stdout).toContain('kubectl-informer_trace');
    expect(plugins.stdout).toContain('kubectl-lease_watch');

    const namespaces = await exec(kubectl(), ['informer-trace', 'cache', 'namespaces'], { KUBECONFIG });
    expect(namespaces.code, namespaces.stderr).toBe(0);
    expect(namespaces.stdout).toMatch(/^NAME\s+RESOURCEVERSION\s+AGE\n/);
    expect(namespaces.stdout).toMatch(/^kube-system\s/m);

    const help = await exec(kubectl(), ['lease-watch', '--help']);
    expect(help.stdout).toMatch(/^Usage: kubectl lease-watch \[options\] \[command\] \[lease\]/);
    const lease = await exec(kubectl(), ['lease-watch', 'kube-system/kube-controller-manager', '-o', 'json'], { KUBECONFIG });
    expect(lease.code, lease.stderr).toBe(0);
    const snapshot = JSON.parse(lease.stdout) as { synced: boolean; leases: { namespace: string; name: string }[] };
    expect(snapshot.synced).toBe(true);
    expect(snapshot.leases.map((l) => `${l.namespace}/${l.name}`)).toEqual(['kube-system/kube-controller-manager']);
  });

  it('the lazily loaded CEL evaluator is in the bundle: --ready compiles, and a bad expression is one line', async () => {
    const bad = await exec(kubectl(), ['informer-trace', 'deploy/web', '--ready', 'status.(', '--kubeconfig', cluster().kubeconfigPath]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error: --ready: not a CEL expression: /);
    // Compiled, then the kubeconfig is looked for.
    const good = await exec(kubectl(), ['informer-trace', 'deploy/web', '--ready', 'status.readyReplicas == spec.replicas'], { KUBECONFIG: '/nonexistent' });
    expect(good.code).toBe(2);
    expect(good.stderr).toMatch(/^error: no kubeconfig found/);
  });

  it('with no kubeconfig, the error and its hint name only what a plugin user has', async () => {
    const r = await exec(kubectl(), ['informer-trace', 'deploy/web'], { KUBECONFIG: '/nonexistent' });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'error: no kubeconfig found (looked for /nonexistent)\nhint: pass --kubeconfig FILE, or set KUBECONFIG to the kubeconfig kubectl uses for the cluster\n',
    );
  });

  it('npx kubectl-informer-trace runs the informer-trace plugin: the bin named like the package', async () => {
    // The tarball as the spec: npx reads its manifest and picks the bin, as for the registry's package.
    // A `file:` spec with the whole path: npm 11.19's npx resolves a `./` spec against / instead of
    // the folder it runs in.
    const npx = await exec('npx', ['--yes', '--offline', `file:${join(work, packed.filename)}`, '--version']);
    expect(npx.code, npx.stderr).toBe(0);
    expect(npx.stdout.trim()).toBe(pkg.version);
  });
});
