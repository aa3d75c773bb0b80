import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { krewManifest, type BuiltArchive } from './krew.js';
import { TARGETS, archiveName, targetById } from './targets.js';

const archives: BuiltArchive[] = TARGETS.map((t, i) => ({
  target: t,
  file: archiveName('1.2.3', t),
  sha256: String(i).repeat(64),
  kind: t.node ? 'sea' : 'script',
  nodeVersion: t.node?.version ?? null,
}));
const options = { version: '1.2.3', homepage: 'https://example.com/it', releaseUrl: 'https://example.com/it/releases/v1.2.3' };

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: {
    version: string;
    homepage: string;
    shortDescription: string;
    description: string;
    caveats: string;
    platforms: { selector: { matchLabels: { os: string; arch: string } }; uri: string; sha256: string; bin: string }[];
  };
}

describe('krew manifests', () => {
  it('one per plugin over the same archives, each platform with its selector, uri, sha256 and bin', () => {
    const it = parse(krewManifest('informer-trace', [...archives].reverse(), options)) as Manifest;
    const lw = parse(krewManifest('lease-watch', archives, options)) as Manifest;
    expect(it.apiVersion).toBe('krew.googlecontainertools.github.com/v1alpha2');
    expect(it.kind).toBe('Plugin');
    expect([it.metadata.name, lw.metadata.name]).toEqual(['informer-trace', 'lease-watch']);
    expect(it.spec.version).toBe('v1.2.3');
    expect(it.spec.platforms.map((p) => `${p.selector.matchLabels.os}/${p.selector.matchLabels.arch}`)).toEqual([
      'linux/amd64',
      'linux/arm64',
      'darwin/amd64',
      'darwin/arm64',
    ]);
    expect(it.spec.platforms[0]).toEqual({
      selector: { matchLabels: { os: 'linux', arch: 'amd64' } },
      uri: 'https://example.com/it/releases/v1.2.3/kubectl-informer-trace_v1.2.3_linux_amd64.tar.gz',
      sha256: '0'.repeat(64),
      bin: 'kubectl-informer_trace',
    });
    expect(lw.spec.platforms.map((p) => p.bin)).toEqual(Array(4).fill('kubectl-lease_watch'));
    expect(lw.spec.platforms.map((p) => [p.uri, p.sha256])).toEqual(it.spec.platforms.map((p) => [p.uri, p.sha256]));
    expect(it.spec.shortDescription.length).toBeLessThanOrEqual(70);
    expect(lw.spec.shortDescription.length).toBeLessThanOrEqual(70);
  });

  it('caveats name the RBAC and say which platforms need Node on PATH or are unsigned', () => {
    const caveats = (parse(krewManifest('informer-trace', archives, options)) as Manifest).spec.caveats;
    expect(caveats).toContain('informer-trace-reader and informer-trace-trigger');
    expect(caveats).toMatch(/list, watch\s+deployments/);
    expect(caveats).toContain('nonResourceURL /metrics');
    expect(caveats).toContain('On darwin/arm64 this is not a standalone executable');
    expect(caveats).toContain('needs Node.js >= 22.19 on PATH');
    expect(caveats).toContain('The darwin/amd64 executable is unsigned');
    const linuxOnly = (
      parse(
        krewManifest(
          'informer-trace',
          archives.filter((a) => a.target.os === 'linux'),
          options,
        ),
      ) as Manifest
    ).spec.caveats;
    expect(linuxOnly).not.toContain('Node.js >=');
    expect(linuxOnly).not.toContain('unsigned');
  });

  it('names archives by version and platform, and knows the platforms', () => {
    expect(archiveName('0.1.0', targetById('darwin-arm64'))).toBe('kubectl-informer-trace_v0.1.0_darwin_arm64.tar.gz');
    expect(() => targetById('windows-amd64')).toThrow('unknown platform "windows-amd64"');
    expect(TARGETS.find((t) => t.id === 'darwin-arm64')!.node).toBeNull();
    for (const t of TARGETS.filter((x) => x.node)) expect(t.node!.version).toMatch(/^24\./);
  });
});
