/**
 * The GitHub Actions workflows in .github/workflows (the release from a tag, release.yml) checked by
 * actionlint v1.7.12, built from the Go module proxy (test/fixtures/actionlint), with shellcheck
 * checking each `run:` script: it must find nothing. A broken copy shows that both look.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { repoRoot } from '../../tools/root.js';
import { execProgram } from './helpers.js';
import { buildFixture } from './operators.js';

const workflows = join(repoRoot, '.github', 'workflows');
const scratch = mkdtempSync(join(tmpdir(), 'informer-trace-workflows-'));
let actionlint: string;

/** actionlint runs shellcheck from PATH when it finds one, and silently skips the scripts when not. */
function shellcheckOnPath(): string {
  const found = (process.env.PATH ?? '')
    .split(delimiter)
    .map((d) => join(d, 'shellcheck'))
    .find((p) => existsSync(p));
  if (!found)
    throw new Error(
      'no shellcheck on PATH: actionlint checks the run: scripts with it (apt-get install shellcheck; npm test installs it, scripts/test-tools.sh)',
    );
  return found;
}

function lint(cwd: string, files: string[] = []) {
  return execProgram(actionlint, ['-color=false', '-shellcheck', shellcheckOnPath(), ...files], { env: { PATH: process.env.PATH, HOME: scratch }, cwd });
}

interface Workflow {
  on: { push: { tags: string[] } };
  jobs: Record<string, { permissions?: Record<string, string>; steps: { name?: string; uses?: string; run?: string }[] }>;
}

describe('the GitHub Actions workflows', () => {
  beforeAll(async () => {
    actionlint = await buildFixture(join(repoRoot, 'test', 'fixtures', 'actionlint', 'build.sh'), 'actionlint');
  }, 10 * 60_000);
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('actionlint (with shellcheck) finds nothing in .github/workflows/*.yml', async () => {
    const files = readdirSync(workflows).filter((f) => /\.ya?ml$/.test(f));
    expect(files).toContain('release.yml');
    const r = await lint(
      repoRoot,
      files.map((f) => join('.github', 'workflows', f)),
    );
    expect(r.stdout + r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('actionlint fails a broken copy: an unknown input of an action, and an unquoted variable shellcheck reports', async () => {
    const dir = join(scratch, 'broken', '.github', 'workflows');
    mkdirSync(dir, { recursive: true });
    const broken = readFileSync(join(workflows, 'release.yml'), 'utf8')
      .replace('node-version: 24', 'node-versoin: 24')
      .replace('ls -l dist-package', 'ls -l $RUNNER_TEMP/dist-package');
    writeFileSync(join(dir, 'release.yml'), broken);
    const r = await lint(join(scratch, 'broken'), [join('.github', 'workflows', 'release.yml')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('input "node-versoin" is not defined in action "actions/setup-node@v6"');
    expect(r.stdout).toMatch(/shellcheck reported issue in this script: SC2086/);
  });

  it('release.yml: on a tag v*, the tests without a cluster, then npm run package, its outputs attached to the release', () => {
    const wf = parse(readFileSync(join(workflows, 'release.yml'), 'utf8')) as Workflow;
    expect(wf.on.push.tags).toEqual(['v*']);
    const job = wf.jobs.release!;
    expect(job.permissions).toEqual({ contents: 'write' });
    const runs = job.steps.map((s) => s.run ?? '').join('\n');
    const order = ['npm ci', 'npm run lint', 'npm run build', 'npm run test:unit', 'npm run package', 'gh release create'].map((c) => runs.indexOf(c));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    // What tools/packaging/cli.ts writes into dist-package/: every archive, the checksums, both manifests.
    for (const asset of [
      'dist-package/kubectl-informer-trace_"$GITHUB_REF_NAME"_*.tar.gz',
      'dist-package/SHA256SUMS',
      'dist-package/krew-manifest.yaml',
      'dist-package/krew-manifest-lease-watch.yaml',
    ])
      expect(runs).toContain(asset);
    expect(runs).toContain('--release-url "$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/releases/download/$GITHUB_REF_NAME"');
  });
});
