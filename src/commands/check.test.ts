import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../testing/cli.js';
import { createInformerTraceProgram } from './informer-trace.js';

/** Flags are checked before any connection: a kubeconfig that does not exist is never read. */
const NO_CLUSTER = ['--kubeconfig', '/nonexistent/kubeconfig'];
const dir = mkdtempSync(join(tmpdir(), 'check-apply-'));
const inShop = join(dir, 'shop.yaml');
writeFileSync(inShop, 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\n');

describe('check --apply -f: the manifest is read and checked before any request', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  for (const [args, message] of [
    [['--apply', '-f', join(dir, 'missing.yaml')], `error: -f ${join(dir, 'missing.yaml')}: no such file`],
    [['--apply', '--max-converge', '2m'], 'error: --apply needs the manifest: -f FILE (repeatable), or -f - for stdin'],
    [['-f', inShop], 'error: -f gives the manifest of --apply; add --apply to apply it'],
    [['--apply', '--filename', inShop, '-n', 'demo'], `error: -f ${inShop}: the object's namespace "shop" does not match --namespace "demo"`],
  ] as const) {
    it(`${args.join(' ')}: one error line, exit 2`, async () => {
      const r = await runCli(createInformerTraceProgram, ['check', ...args, ...NO_CLUSTER]);
      expect(r.code, r.stderr).toBe(2);
      const errors = r.stderr.split('\n').filter((l) => l.startsWith('error:'));
      expect(errors).toEqual([message]);
      expect(r.stderr).not.toMatch(/^\s+at /m);
      expect(r.stdout).toBe('');
    });
  }
});
