/**
 * Packaging as kubectl plugins: the linux/amd64 archive that `npm run package` builds (only that
 * platform here, to keep the suite short; `npm run package` builds all four), checked against the
 * krew manifest written with it, its executable run with no Node.js anywhere on PATH (the four
 * platforms' manifests: tools/packaging/krew.test.ts). The npm package: package-install.test.ts.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { list } from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string };
const out = mkdtempSync(join(tmpdir(), 'informer-trace-package-'));
const archive = `kubectl-informer-trace_v${pkg.version}_linux_amd64.tar.gz`;
/** Temporary folders, removed at the end: the build is hundreds of MiB. */
const scratch: string[] = [out];

function tempDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  scratch.push(d);
  return d;
}

interface Platform {
  selector: { matchLabels: { os: string; arch: string } };
  uri: string;
  sha256: string;
  bin: string;
}
interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: { version: string; homepage: string; shortDescription: string; description: string; caveats: string; platforms: Platform[] };
}

function manifest(file: string): Manifest {
  return parse(readFileSync(file, 'utf8')) as Manifest;
}

function sha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

async function entries(file: string): Promise<Map<string, { mode: number; size: number }>> {
  const found = new Map<string, { mode: number; size: number }>();
  await list({ file, onReadEntry: (e) => void found.set(e.path, { mode: e.mode ?? 0, size: e.size ?? 0 }) });
  return found;
}

/** A folder holding only the tools the lease-watch wrapper uses: no node, no npm. */
function toolsOnly(): string {
  const dir = tempDir('informer-trace-tools-');
  for (const tool of ['readlink']) {
    const found = ['/usr/bin', '/bin'].map((d) => join(d, tool)).find((p) => existsSync(p));
    if (!found) throw new Error(`no ${tool} in /usr/bin or /bin`);
    symlinkSync(found, join(dir, tool));
  }
  return dir;
}

function expectNoNode(path: string): void {
  for (const d of path.split(delimiter).filter(Boolean)) {
    expect(existsSync(join(d, 'node')), `${d} holds a node`).toBe(false);
  }
}

describe('kubectl plugin packaging', () => {
  beforeAll(async () => {
    await run(process.execPath, [join(root, 'build', 'tools', 'packaging', 'cli.js'), '--platforms', 'linux-amd64', '--out', out], {
      cwd: root,
      timeout: 9 * 60_000,
      maxBuffer: 16 * 1024 * 1024,
    });
  }, 10 * 60_000);
  afterAll(() => {
    for (const d of scratch) rmSync(d, { recursive: true, force: true });
  });

  it('the archive matches the krew manifests written with it: sha256, uri, bin, the files in it', async () => {
    expect(readdirSync(out).sort()).toEqual(['SHA256SUMS', 'build', 'krew-manifest-lease-watch.yaml', 'krew-manifest.yaml', archive]);
    const digest = sha256(join(out, archive));
    expect(readFileSync(join(out, 'SHA256SUMS'), 'utf8')).toBe(`${digest}  ${archive}\n`);
    const files = await entries(join(out, archive));
    expect([...files.keys()]).toEqual(['kubectl-informer_trace', 'kubectl-lease_watch', 'LICENSE', 'LICENSE.node']);
    expect(files.get('kubectl-informer_trace')!.mode & 0o777).toBe(0o755);
    expect(files.get('kubectl-lease_watch')!.mode & 0o777).toBe(0o755);
    expect(files.get('LICENSE')!.mode & 0o777).toBe(0o644);
    // A Node binary with the program in it.
    expect(files.get('kubectl-informer_trace')!.size).toBeGreaterThan(50 * 1024 * 1024);
    for (const [file, name, bin] of [
      ['krew-manifest.yaml', 'informer-trace', 'kubectl-informer_trace'],
      ['krew-manifest-lease-watch.yaml', 'lease-watch', 'kubectl-lease_watch'],
    ] as const) {
      const m = manifest(join(out, file));
      expect(m.metadata.name).toBe(name);
      expect(m.spec.version).toBe(`v${pkg.version}`);
      expect(m.spec.platforms).toHaveLength(1);
      const p = m.spec.platforms[0]!;
      expect(p.selector.matchLabels).toEqual({ os: 'linux', arch: 'amd64' });
      expect(p.sha256).toBe(digest);
      expect(p.uri.endsWith(`/${archive}`)).toBe(true);
      expect(p.bin).toBe(bin);
      expect(files.has(p.bin)).toBe(true);
    }
  });

  it('the linux/amd64 executable runs with no Node.js on PATH, as both plugins, also through a symlink as krew makes', async () => {
    const dir = tempDir('informer-trace-unpacked-');
    await run('tar', ['xzf', join(out, archive), '-C', dir]);
    const tools = toolsOnly();
    expectNoNode(tools);
    const env = { PATH: tools, HOME: dir };
    const help = await run(join(dir, 'kubectl-informer_trace'), ['--help'], { env });
    expect(help.stdout).toMatch(/^Usage: kubectl informer-trace \[options\] \[command\] \[target\] \[name\]/);
    expect(help.stdout).toContain('check [options]');
    const version = await run(join(dir, 'kubectl-informer_trace'), ['--version'], { env: { PATH: '' } });
    expect(version.stdout.trim()).toBe(pkg.version);
    // krew links ~/.krew/bin/kubectl-lease_watch to the file in its store.
    const krewBin = join(dir, 'krew-bin');
    mkdirSync(krewBin);
    symlinkSync(join(dir, 'kubectl-lease_watch'), join(krewBin, 'kubectl-lease_watch'));
    const lw = await run(join(krewBin, 'kubectl-lease_watch'), ['--help'], { env });
    expect(lw.stdout).toMatch(/^Usage: kubectl lease-watch \[options\] \[command\] \[lease\]/);
    const check = await run(join(dir, 'kubectl-lease_watch'), ['check', '--help'], { env });
    expect(check.stdout).toMatch(/^Usage: kubectl lease-watch check \[options\]/);
    // Bad flags: exit 2 from the standalone program, as from the npm one.
    const bad = await run(join(dir, 'kubectl-informer_trace'), ['check'], { env }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('error: nothing to check');
  });
});
