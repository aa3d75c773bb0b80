import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { syntheticRollout } from '../../tools/testing/synthetic-trace.js';
import { parseXml } from '../../tools/testing/xml.js';
import type { TraceSnapshot } from '../trace/index.js';
import { artifactBaseName, ArtifactsDir } from './artifacts.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'artifacts-'));
  dirs.push(d);
  return d;
}

describe('ArtifactsDir', () => {
  it('names files after the check', () => {
    expect(artifactBaseName('rollout deploy/web in demo')).toBe('rollout-deploy-web-in-demo');
    expect(artifactBaseName('Web: canary (EU)')).toBe('web-canary-eu');
    expect(artifactBaseName('../../etc/passwd')).toBe('etc-passwd');
    expect(artifactBaseName('///')).toBe('check');
    expect(artifactBaseName('x'.repeat(300))).toHaveLength(100);
  });

  it('makes the folder, writes one SVG per check, replaces a previous run and keeps clashing names apart', () => {
    const root = tmp();
    const dir = join(root, 'a', 'b');
    const artifacts = ArtifactsDir.prepare(dir);
    writeFileSync(join(dir, 'rollout-deploy-web.svg'), 'old');
    const snap = syntheticRollout(3) as TraceSnapshot;
    const first = artifacts.writeWaterfall('rollout deploy/web', snap);
    const second = artifacts.writeWaterfall('rollout deploy web', snap);
    expect(first).toBe(join(dir, 'rollout-deploy-web.svg'));
    expect(second).toBe(join(dir, 'rollout-deploy-web-2.svg'));
    expect(readdirSync(dir).sort()).toEqual(['rollout-deploy-web-2.svg', 'rollout-deploy-web.svg']);
    expect(parseXml(readFileSync(first, 'utf8')).name).toBe('svg');
  });

  it('a path that cannot be a folder is a usage error', () => {
    const file = join(tmp(), 'file');
    writeFileSync(file, '');
    expect(() => ArtifactsDir.prepare(file)).toThrow(new UsageError(`--artifacts ${file}: not a folder`));
    expect(() => ArtifactsDir.prepare(join(file, 'sub'))).toThrow(/--artifacts .*sub: cannot make the folder \(ENOTDIR\)/);
  });
});
