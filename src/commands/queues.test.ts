/**
 * `kubectl informer-trace queues` in-process, against endpoints on 127.0.0.1 that serve the real
 * kube-controller-manager fixtures, an HTML page, 401, or nothing at all. Direct URLs need no
 * cluster, so a kubeconfig that does not exist proves no request went to an API server.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../../tools/testing/cli.js';
import type { QueueRow } from '../metrics/index.js';
import { metricsFixture } from '../../tools/testing/fake-metrics-source.js';
import { controlsIn, HOSTILE } from '../../tools/testing/hostile.js';
import { createInformerTraceProgram } from './informer-trace.js';

function run(argv: string[]): Promise<CliResult> {
  return runCli(createInformerTraceProgram, ['queues', ...argv, '--kubeconfig', '/nonexistent/kubeconfig'], { CI: 'true' });
}

interface QueuesJson {
  sources: {
    source: string;
    ok: boolean;
    state: string;
    error: string | null;
    kind: string | null;
    windowSeconds: number | null;
    leader: string | null;
    queues: QueueRow[];
  }[];
}

const first = metricsFixture('kube-controller-manager.prom');
const second = metricsFixture('kube-controller-manager.2.prom');
let server: Server;
let base: string;
const served = new Map<string, number>();
const hanging = new Set<ServerResponse>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = req.url ?? '';
    const n = (served.get(url) ?? 0) + 1;
    served.set(url, n);
    if (url.startsWith('/kcm/')) {
      // The first scrape gets the first real exposition, every later one the second.
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
      res.end(n === 1 ? first : second);
    } else if (url === '/login') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><html><title>Sign in</title></html>');
    } else if (url === '/evil-page') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<html>${HOSTILE}</html>`);
    } else if (url === '/evil-401') {
      res.writeHead(401, { 'content-type': 'text/plain' });
      res.end(HOSTILE);
    } else if (url === '/secret') {
      const ok = req.headers.authorization === 'Bearer right';
      res.writeHead(ok ? 200 : 401, { 'content-type': 'text/plain' });
      res.end(ok ? second : 'Unauthorized\n');
    } else {
      hanging.add(res);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of hanging) res.destroy();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

let id = 0;
const kcm = (): string => `${base}/kcm/${++id}`;

describe('kubectl informer-trace queues: input checked before any request', () => {
  it.each([
    [['--metrics', 'deploy/kube-system/x'], '--metrics "deploy/kube-system/x": not a form this tool reads'],
    [['--metrics', 'ftp://h/metrics'], '--metrics "ftp://h/metrics": ftp:// is not supported, only http:// and https://'],
    [['--metrics', 'apiserver', '--metrics-token', 't'], '--metrics-token applies to https://HOST:PORT/metrics sources, and none is given'],
    [['--metrics', 'https://h:1/metrics', '--metrics-timeout', '0'], '--metrics-timeout must be a positive duration'],
    [['--metrics', 'https://h:1/metrics', '--interval', '0'], '--interval must be a positive duration'],
    [['--metrics', 'https://h:1/metrics', '--interval', '2'], '--interval: invalid duration "2"'],
    [['--metrics', 'https://h:1/metrics', '--for', '0'], '--for must be a positive duration'],
    [['--metrics', 'https://h:1/metrics', '-o', 'json', '--once'], '--once applies to -o table; -o json prints one snapshot already'],
    [['--metrics', 'https://h:1/metrics', '--watch', '--once'], '--watch and --once cannot be used together'],
    [['--metrics', 'https://h:1/metrics', '-o', 'yaml', '--watch'], '--watch does not apply to -o yaml'],
    [['--metrics', 'https://h:1/metrics', '-o', 'tui'], '-o tui needs a terminal: stdout is not one'],
  ])('%j → exit 2: %s', async (argv, message) => {
    const r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`error: ${message}`);
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });

  it('without --metrics it needs the cluster (to discover the control plane): the kubeconfig is read', async () => {
    const r = await run(['-o', 'json']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('kubeconfig /nonexistent/kubeconfig does not exist');
  });

  it('takes connection flags written before the subcommand too, while its own flags keep their values', async () => {
    const { code, stderr: err } = await runCli(
      createInformerTraceProgram,
      ['--kubeconfig', '/nonexistent/before', 'queues', '--metrics', 'apiserver', '--metrics-timeout', '2s', '-o', 'json'],
      { CI: 'true' },
    );
    expect(code).toBe(2);
    expect(err).toContain('kubeconfig /nonexistent/before does not exist');
    // The root has --metrics and --metrics-timeout too (for the trace), with defaults that must not win.
    const bad = await run(['--metrics', 'https://h:1/metrics', '--metrics-timeout', '0']);
    expect(bad.stderr).toContain('error: --metrics-timeout must be a positive duration');
  });

  it('--help lists the flags and examples', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    for (const flag of [
      '--metrics <spec>',
      '--metrics-token <token>',
      '--metrics-kubeconfig-credentials',
      '--metrics-insecure-skip-tls-verify',
      '--interval <duration>',
      '--once',
      '--for <duration>',
      '--queue <names>',
    ])
      expect(r.stdout).toContain(flag);
    expect(r.stdout).toContain('kubectl informer-trace queues --metrics apiserver -o json --for 30s');
  });
});

describe('kubectl informer-trace queues against local endpoints', () => {
  it('-o json: one snapshot after two scrapes, rates over the interval, every row', async () => {
    const url = kcm();
    const r = await run(['--metrics', url, '-o', 'json', '--interval', '200ms']);
    expect(r.stderr).not.toMatch(/^error/m);
    expect(r.code).toBe(0);
    expect(served.get(url.slice(base.length))).toBe(2);
    const s = (JSON.parse(r.stdout) as QueuesJson).sources[0]!;
    expect(s).toMatchObject({ source: url, ok: true, state: 'ok', leader: 'leader' });
    // About the 200 ms interval: timers may fire a millisecond early against the wall clock.
    expect(s.windowSeconds).toBeGreaterThanOrEqual(0.19);
    expect(s.queues).toHaveLength(55);
    const d = s.queues.find((q) => q.name === 'deployment')!;
    expect(d.addsTotal).toBe(12);
    expect(d.addsPerSecond).toBeCloseTo(11 / s.windowSeconds!, 6);
  });

  it('--queue keeps only the named queues', async () => {
    const r = await run(['--metrics', kcm(), '-o', 'json', '--interval', '100ms', '--queue', 'deployment', '--queue', 'replica*']);
    expect((JSON.parse(r.stdout) as QueuesJson).sources[0]!.queues.map((q) => q.name)).toEqual(['deployment', 'replicaset', 'replicationmanager']);
  });

  it('HTML, 401 and a hang fail one line each on stderr while the working source keeps its rows: exit 0', async () => {
    const url = kcm();
    const r = await run([
      '--metrics',
      url,
      '--metrics',
      `${base}/login`,
      '--metrics',
      `${base}/secret`,
      '--metrics',
      `${base}/hang`,
      '--metrics-timeout',
      '1500ms',
      '-o',
      'json',
      '--interval',
      '1600ms',
    ]);
    expect(r.code).toBe(0);
    const sources = (JSON.parse(r.stdout) as QueuesJson).sources;
    expect(sources.map((s) => [s.source, s.ok, s.kind])).toEqual([
      [url, true, null],
      [`${base}/login`, false, 'not-metrics'],
      [`${base}/secret`, false, 'unauthorized'],
      [`${base}/hang`, false, 'timeout'],
    ]);
    expect(sources[0]!.queues.length).toBe(55);
    expect(sources[3]!.error).toBe('no answer within 1500ms');
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('error: '));
    expect(errors).toEqual([
      expect.stringMatching(
        new RegExp(`^error: metrics ${base}/login: answered text/html, not Prometheus metrics .*\\(hint: is ${base}/login the metrics endpoint\\?`),
      ),
      `error: metrics ${base}/secret: 401 Unauthorized: Unauthorized (hint: the credentials were refused; check the kubeconfig user or --token)`,
      `error: metrics ${base}/hang: no answer within 1500ms (hint: the endpoint is slow or not answering; a larger timeout may help)`,
    ]);
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });

  it('every source failing: exit 3 with a last line that says so', async () => {
    const r = await run(['--metrics', `${base}/login`, '--metrics', `${base}/secret`, '-o', 'json', '--interval', '100ms']);
    expect(r.code).toBe(3);
    expect((JSON.parse(r.stdout) as QueuesJson).sources.every((s) => !s.ok)).toBe(true);
    expect(r.stderr.trim().split('\n').at(-1)).toBe('error: none of the 2 metrics sources answered its last scrape');
  });

  it('--metrics-token is sent as a bearer token to direct endpoints', async () => {
    const r = await run(['--metrics', `${base}/secret`, '--metrics-token', 'right', '-o', 'json', '--interval', '100ms']);
    expect(r.stderr).not.toMatch(/^error/m);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as QueuesJson).sources[0]!.ok).toBe(true);
  });

  it('-o ndjson (and -o json --watch) print one snapshot per interval until --for ends it', async () => {
    for (const flags of [
      ['-o', 'ndjson'],
      ['-o', 'json', '--watch'],
    ]) {
      const started = Date.now();
      const r = await run(['--metrics', kcm(), ...flags, '--interval', '100ms', '--for', '1500ms']);
      expect(r.code).toBe(0);
      expect(Date.now() - started).toBeLessThan(5_000);
      const lines = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as QueuesJson);
      // At most one line per interval (a round lasts at least that long), and more than one.
      expect(lines.length).toBeGreaterThanOrEqual(2);
      expect(lines.length).toBeLessThanOrEqual(15);
      // Rounds run start to start: rates over the interval (the last, cut by --for, over half of it at least).
      for (const l of lines.slice(0, -1)) expect(l.sources[0]!.windowSeconds).toBeGreaterThanOrEqual(0.08);
      expect(lines.at(-1)!.sources[0]!.windowSeconds).toBeGreaterThanOrEqual(0.04);
    }
  });

  it('-o table prints a block per interval with its time; --once prints one without it', async () => {
    const r = await run(['--metrics', kcm(), '-o', 'table', '--interval', '100ms', '--for', '1500ms', '--queue', 'deployment']);
    expect(r.code).toBe(0);
    const blocks = r.stdout.trim().split(/\n\n(?=\d\d:\d\d:\d\d UTC\n)/);
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    for (const b of blocks) {
      expect(b).toMatch(/^\d\d:\d\d:\d\d UTC\nSOURCE\s+STATE\n/);
      expect(b).toMatch(/^deployment\s+0\s/m);
    }
    const once = await run(['--metrics', kcm(), '-o', 'table', '--once', '--interval', '100ms']);
    expect(once.code).toBe(0);
    expect(once.stdout).toMatch(/^SOURCE\s+STATE\n/);
    expect(once.stdout).toMatch(/^deployment\s+0\s+\d/m);
    expect(once.stdout).not.toMatch(/^cronjob/m); // idle, hidden
  });
});

describe('kubectl informer-trace queues: what a source answers is escaped on stderr, exact in json', () => {
  it('a page or a refusal holding escape sequences is one line each on stderr, shown, not obeyed', async () => {
    const r = await run(['--metrics', kcm(), '--metrics', `${base}/evil-page`, '--metrics', `${base}/evil-401`, '-o', 'json', '--interval', '100ms']);
    expect(r.code).toBe(0);
    expect(controlsIn(r.stderr)).toEqual([]);
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('error: '));
    expect(errors).toHaveLength(2);
    // The page's first words are quoted as JSON (ESC as \u001b), which leaves C1 alone: escaped here.
    expect(errors[0]).toContain('\\u009b31m');
    expect(errors[1]).toContain('\\x1b[2J');
    // -o json carries what was answered exactly.
    const sources = (JSON.parse(r.stdout) as QueuesJson).sources;
    expect(sources[2]!.error).toContain('\u001b[2J');
  });
});
