import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../tools/testing/cli.js';
import { controlsIn, HOSTILE } from '../../tools/testing/hostile.js';
import { startLoopbackServer } from '../../tools/testing/http-server.js';
import { parseXml } from '../../tools/testing/xml.js';
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
    [['-f', inShop], 'error: -f gives the manifest of --apply; add --apply to apply it, or --watch to check the next change to its objects'],
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

describe('check: a source that answers escape sequences', () => {
  it('they are shown escaped on stderr and in the JUnit file and the step summary, and exact in -o json', async () => {
    // An HTML page whose first words hold C1 CSI (quoted as JSON, which leaves C1 alone), and a refusal holding everything.
    const server = await startLoopbackServer((req, res) => {
      if (req.url === '/page') {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(`<html>\u009b31m ${HOSTILE}</html>`);
      } else {
        res.writeHead(401, { 'content-type': 'text/plain' });
        res.end(HOSTILE);
      }
    });
    const out = mkdtempSync(join(tmpdir(), 'check-hostile-'));
    try {
      const junit = join(out, 'results.xml');
      const summary = join(out, 'summary.md');
      const r = await runCli(
        createInformerTraceProgram,
        [
          'check',
          '--metrics',
          `${server.base}/page`,
          '--metrics',
          `${server.base}/refused`,
          '--max-depth',
          '5',
          '--window',
          '200ms',
          '--junit',
          junit,
          '-o',
          'json',
          ...NO_CLUSTER,
        ],
        { CI: 'true', GITHUB_STEP_SUMMARY: summary },
      );
      // Nothing could be measured: exit 3.
      expect(r.code, r.stderr).toBe(3);
      expect(controlsIn(r.stderr)).toEqual([]);
      expect(r.stderr).toContain('\\u009b31m');
      expect(r.stderr).toContain('\\x1b[2J');
      const xml = readFileSync(junit, 'utf8');
      expect(controlsIn(xml)).toEqual([]);
      expect(parseXml(xml).name).toBe('testsuites');
      const md = readFileSync(summary, 'utf8');
      expect(controlsIn(md)).toEqual([]);
      expect(md).not.toContain('<script>');
      // The report on stdout carries what was answered exactly.
      expect(r.stdout).toContain(JSON.stringify(HOSTILE).slice(1, 20));
    } finally {
      await server.close();
      rmSync(out, { recursive: true, force: true });
    }
  });
});
