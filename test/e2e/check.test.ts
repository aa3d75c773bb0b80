/**
 * `kubectl informer-trace check` / `kubectl lease-watch check` against the real control plane: a
 * passing and a failing check of each kind (rollout, lease, queue), several at once from a config
 * file, and a config error that points at its line. Exit codes, the JUnit file, -o json and the
 * $GITHUB_STEP_SUMMARY table are asserted.
 *
 * The failing lease check kills kube-controller-manager, so it runs last and starts it again.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckReport } from '../../src/check/types.js';
import type { ProgramFactory } from '../../src/cli/run.js';
import { startCli as startCliWith, type LiveCli } from '../../tools/testing/cli.js';
import { createInformerTraceProgram } from '../../src/commands/informer-trace.js';
import { createLeaseWatchProgram } from '../../src/commands/lease-watch.js';
import {
  adminKube,
  cluster,
  createNamespace,
  createWorkloadNamespace,
  deleteNamespace,
  deploymentAvailable,
  eventually,
  runCli,
  uniqueName,
  type CliResult,
} from './helpers.js';

const kube = adminKube();
const c = cluster();
const kubeconfig = c.kubeconfigPath;
const ns = uniqueName('it-check');
const quotaNs = uniqueName('it-check-quota');
const dir = mkdtempSync(join(tmpdir(), 'informer-trace-check-'));
const kcmMetrics = c.metricsUrl('kube-controller-manager');

/** Like runCli, but stderr can be read while the command runs. */
function startCli(factory: ProgramFactory, argv: string[], env: NodeJS.ProcessEnv = {}): LiveCli {
  return startCliWith(factory, argv, { ...process.env, CI: 'true', GITHUB_STEP_SUMMARY: '', ...env });
}

function check(factory: ProgramFactory, args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return runCli(factory, ['check', ...args, '--kubeconfig', kubeconfig], { env: { GITHUB_STEP_SUMMARY: '', ...env } });
}

function report(r: CliResult): CheckReport {
  return JSON.parse(r.stdout) as CheckReport;
}

/** The <testcase> elements of a JUnit file, with whether each failed or errored and its message. */
function testcases(xml: string): { name: string; failure: string | undefined; error: string | undefined }[] {
  return [...xml.matchAll(/<testcase [^>]*name="([^"]*)"[^>]*>([\s\S]*?)<\/testcase>/g)].map((m) => ({
    name: m[1]!,
    failure: /<failure message="([^"]*)"/.exec(m[2]!)?.[1],
    error: /<error message="([^"]*)"/.exec(m[2]!)?.[1],
  }));
}

function deployment(name: string, replicas: number, cpu?: string): unknown {
  const container: Record<string, unknown> = { name: 'c', image: 'registry.invalid/app:1' };
  if (cpu) container.resources = { requests: { cpu } };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [container] } } },
  };
}

async function createDeployment(namespace: string, name: string, replicas: number, cpu?: string): Promise<void> {
  await kube.client.json(`/apis/apps/v1/namespaces/${namespace}/deployments`, { method: 'POST', body: deployment(name, replicas, cpu) });
}

describe('check on the real control plane', () => {
  beforeAll(async () => {
    await createWorkloadNamespace(kube, ns);
    await createNamespace(kube, quotaNs);
    await createDeployment(ns, 'web', 2);
    // Asks for more CPU than a kwok node has (64): its Pods can never be scheduled.
    await createDeployment(ns, 'big', 0, '100');
    await deploymentAvailable(kube, ns, 'web', 2);
  });
  afterAll(async () => {
    await deleteNamespace(kube, ns);
    await deleteNamespace(kube, quotaNs);
    rmSync(dir, { recursive: true, force: true });
  });

  it('rollout, passing: --restart converges within --max-converge with no hop over --max-hop; json, JUnit and step summary', async () => {
    const junit = join(dir, 'rollout-pass.xml');
    const summary = join(dir, 'summary.md');
    writeFileSync(summary, '# earlier step\n');
    const r = await check(
      createInformerTraceProgram,
      ['--restart', 'deploy/web', '-n', ns, '--max-converge', '90s', '--max-hop', '60s', '-o', 'json', '--junit', junit],
      { GITHUB_STEP_SUMMARY: summary },
    );
    expect(r.code, r.stderr).toBe(0);
    const rep = report(r);
    expect(rep.passed).toBe(true);
    expect(rep.counts).toEqual({ checks: 1, results: 2, passed: 2, failed: 0, errors: 0 });
    const run = rep.checks[0]!;
    expect(run.name).toBe(`rollout deploy/web in ${ns}`);
    const converge = run.results.find((x) => x.name === 'time to converge')!;
    expect(converge.measured).toBeGreaterThan(0);
    expect(converge.measured).toBeLessThanOrEqual(90_000);
    expect(converge.limit).toBe(90_000);
    expect(converge.message).toMatch(/^converged in /);
    const hop = run.results.find((x) => x.name === 'slowest hop')!;
    expect(hop.measured).toBeGreaterThanOrEqual(0);
    expect(hop.measured).toBeLessThanOrEqual(converge.measured!);
    expect(hop.message).toMatch(/^slowest: \w+\/\S+ [a-z-]+, [\d.]+m?s after /);
    expect(r.stderr).toMatch(/^PASS {2}rollout deploy\/web in \S+ › time to converge: /m);
    expect(r.stderr).toMatch(/1 check, 2 limits: 2 passed, 0 failed, 0 not measured .*exit 0\)/);

    const xml = readFileSync(junit, 'utf8');
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="kubectl informer-trace check" tests="2" failures="0" errors="0"')).toBe(
      true,
    );
    expect(testcases(xml)).toEqual([
      { name: `rollout deploy/web in ${ns}: time to converge`, failure: undefined, error: undefined },
      { name: `rollout deploy/web in ${ns}: slowest hop`, failure: undefined, error: undefined },
    ]);
    const md = readFileSync(summary, 'utf8');
    expect(md.startsWith('# earlier step\n### kubectl informer-trace check: ✅ all 2 passed')).toBe(true);
    expect(md).toContain(`| ✅ | rollout deploy/web in ${ns} | time to converge |`);
  });

  it('rollout, failing: scaled to Pods no node can hold, it does not converge within --max-converge and says why', async () => {
    const junit = join(dir, 'rollout-fail.xml');
    const started = Date.now();
    const r = await check(createInformerTraceProgram, [
      '--scale',
      'deploy/big=2',
      '-n',
      ns,
      '--max-converge',
      '8s',
      '--max-hop',
      '6s',
      '-o',
      'json',
      '--junit',
      junit,
    ]);
    expect(r.code, r.stderr).toBe(1);
    // The deadline is the limit: it has failed by then, so it does not wait for the 5m default.
    expect(Date.now() - started).toBeLessThan(40_000);
    const run = report(r).checks[0]!;
    const converge = run.results.find((x) => x.name === 'time to converge')!;
    expect(converge).toMatchObject({ passed: false, status: 'failed', measured: null, limit: 8_000 });
    expect(converge.message).toMatch(/^not converged within the 8\.00s limit/);
    expect(converge.message).toMatch(
      /diagnosis: broken at "scheduled": Deployment\/big: \d Pods? cannot be scheduled: Unschedulable: 0\/2 nodes are available: 2 Insufficient cpu/,
    );
    expect(converge.message).toMatch(/; next: kubectl describe pod big-\S+ -n /);
    const hop = run.results.find((x) => x.name === 'slowest hop')!;
    expect(hop).toMatchObject({ passed: false, status: 'failed' });
    expect(hop.measured).toBeGreaterThan(6_000);
    expect(hop.message).toMatch(/^over the 6\.00s limit: no progress for /);
    expect(r.stderr).toMatch(/^FAIL {2}rollout deploy\/big in \S+ › time to converge: - \(limit 8\.00s\) — not converged/m);

    const cases = testcases(readFileSync(junit, 'utf8'));
    expect(cases).toHaveLength(2);
    expect(cases[0]!.failure).toMatch(/^time to converge: - \(limit 8\.00s\): not converged within the 8\.00s limit/);
    expect(cases[0]!.failure).toContain('Insufficient cpu');
    expect(cases[1]!.failure).toMatch(/^slowest hop: /);
  });

  it('rollout by apply: --apply -f creates a new Deployment server-side and it converges within --max-converge; applied again, nothing changes', async () => {
    const manifest = join(dir, 'fresh.yaml');
    writeFileSync(manifest, JSON.stringify(deployment('fresh', 2)));
    const junit = join(dir, 'apply.xml');
    const r = await check(createInformerTraceProgram, ['--apply', '-f', manifest, '-n', ns, '--max-converge', '2m', '-o', 'json', '--junit', junit]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`rollout deployment/fresh in ${ns}: apply ${manifest}; converge ≤ 2m`);
    expect(r.stderr).toContain(`wrote: applied deployments.apps/fresh in ${ns} from ${manifest} (server-side, field manager kubectl-informer-trace): created`);
    const run = report(r).checks[0]!;
    expect(run.name).toBe(`rollout deployment/fresh in ${ns}`);
    const converge = run.results.find((x) => x.name === 'time to converge')!;
    expect(converge).toMatchObject({ passed: true, status: 'passed', limit: 120_000 });
    expect(converge.measured).toBeGreaterThan(0);
    expect(converge.measured).toBeLessThanOrEqual(120_000);
    expect(converge.message).toMatch(/^converged in /);
    // What `kubectl rollout status` waits for holds once the check has passed.
    const live = await kube.client.json<{ status?: { readyReplicas?: number; updatedReplicas?: number } }>(`/apis/apps/v1/namespaces/${ns}/deployments/fresh`);
    expect(live.status).toMatchObject({ readyReplicas: 2, updatedReplicas: 2 });
    expect(testcases(readFileSync(junit, 'utf8'))).toEqual([
      { name: `rollout deployment/fresh in ${ns}: time to converge`, failure: undefined, error: undefined },
    ]);

    // The config file's form, its manifest beside it: the same object again changes nothing.
    const config = join(dir, 'apply.yaml');
    writeFileSync(
      config,
      ['checks:', '  - kind: rollout', '    trigger: apply', '    manifest: fresh.yaml', `    namespace: ${ns}`, '    maxConverge: 2m', ''].join('\n'),
    );
    const again = await check(createInformerTraceProgram, ['--config', config, '-o', 'json']);
    expect(again.code, again.stderr).toBe(0);
    expect(report(again).checks[0]!).toMatchObject({ name: `rollout deployment/fresh in ${ns}`, origin: { source: config, line: 2 } });
    expect(report(again).checks[0]!.results[0]).toMatchObject({
      passed: true,
      measured: null,
      message: 'no rollout followed the write: the manifest matches Deployment/fresh: the apply changed nothing',
    });
  });

  it('lease, passing: the controller-manager renews well within --max-renew-age and does not change hands in the window', async () => {
    const junit = join(dir, 'lease-pass.xml');
    const r = await check(createLeaseWatchProgram, [
      '--lease',
      'kube-system/kube-controller-manager',
      '--max-renew-age',
      '10s',
      '--max-transitions',
      '0',
      '--window',
      '6s',
      '-o',
      'json',
      '--junit',
      junit,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const run = report(r).checks[0]!;
    expect(run.name).toBe('lease kube-system/kube-controller-manager');
    const age = run.results.find((x) => x.name === 'renew age')!;
    // KCM renews every 2 s (jittered): over 6 s the record never stands still for 10.
    expect(age.status).toBe('passed');
    expect(age.measured).toBeLessThan(5_000);
    expect(age.measured).toBeGreaterThanOrEqual(0);
    expect(run.results.find((x) => x.name === 'transitions')).toMatchObject({ status: 'passed', measured: 0, limit: 0 });
    expect(run.durationMs).toBeGreaterThanOrEqual(6_000);
    expect(testcases(readFileSync(junit, 'utf8')).map((t) => [t.name, t.failure])).toEqual([
      ['lease kube-system/kube-controller-manager: renew age', undefined],
      ['lease kube-system/kube-controller-manager: transitions', undefined],
    ]);
  });

  it("queue, passing: the controller-manager's workqueues stay under --max-depth and --max-retry-rate", async () => {
    const r = await check(createInformerTraceProgram, [
      '--metrics',
      kcmMetrics,
      '--metrics-insecure-skip-tls-verify',
      '--max-depth',
      'deployment=50',
      '--max-depth',
      '100',
      '--max-retry-rate',
      '5/s',
      '--window',
      '5s',
      '--sample-interval',
      '1s',
      '-o',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const run = report(r).checks[0]!;
    expect(run.results.map((x) => [x.name, x.status])).toEqual([
      ['depth of deployment', 'passed'],
      ['depth', 'passed'],
      ['retry rate', 'passed'],
    ]);
    const depth = run.results[0]!;
    expect(depth.measured).toBeGreaterThanOrEqual(0);
    // Start, every second, end: about six samples.
    expect(depth.message).toMatch(/in ([4-9]|1\d) samples/);
    expect(run.results[2]!.message).toMatch(/retr(y|ies) in [\d.]+s = /);
  });

  it('queue, failing: a ReplicaSet refused by a quota retries faster than --max-retry-rate; an unknown queue name is named as absent', async () => {
    await kube.client.json(`/api/v1/namespaces/${quotaNs}/resourcequotas`, {
      method: 'POST',
      body: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'no-pods' }, spec: { hard: { pods: '0' } } },
    });
    const junit = join(dir, 'queue-fail.xml');
    const live = startCli(createInformerTraceProgram, [
      'check',
      '--metrics',
      kcmMetrics,
      '--metrics-insecure-skip-tls-verify',
      '--max-retry-rate',
      'replicaset=0.05/s',
      '--max-depth',
      'no-such-queue=1',
      '--window',
      '12s',
      '--junit',
      junit,
      '-o',
      'json',
      '--kubeconfig',
      kubeconfig,
    ]);
    await eventually('the first scrape', async () => live.stderr().includes('sampling for'), 30_000, 50);
    // The quota admits no Pod: the ReplicaSet controller's sync fails and its key is requeued with backoff.
    await eventually(
      'quota status',
      async () => {
        const q = await kube.client.json<{ status?: { hard?: Record<string, string> } }>(`/api/v1/namespaces/${quotaNs}/resourcequotas/no-pods`);
        return q.status?.hard?.pods === '0';
      },
      30_000,
    );
    await createDeployment(quotaNs, 'refused', 1);
    const r = await live.done;
    expect(r.code, r.stderr).toBe(1);
    const results = report(r).checks[0]!.results;
    const depth = results.find((x) => x.name === 'depth of no-such-queue')!;
    expect(depth).toMatchObject({ status: 'failed', measured: null });
    expect(depth.message).toMatch(/no workqueue named "no-such-queue" with workqueue_depth in .* \(queues there: .*deployment.*replicaset/);
    const rate = results.find((x) => x.name === 'retry rate of replicaset')!;
    expect(rate.status, rate.message).toBe('failed');
    expect(rate.measured).toBeGreaterThan(0.05);
    expect(rate.message).toMatch(/^\d+ retries in [\d.]+s = [\d.]+\/s .*, over the limit of 0\.05\/s$/);
    const cases = testcases(readFileSync(junit, 'utf8'));
    expect(cases.map((t) => t.name)).toEqual([`queues of ${kcmMetrics}: depth of no-such-queue`, `queues of ${kcmMetrics}: retry rate of replicaset`]);
    expect(cases.every((t) => t.failure !== undefined)).toBe(true);
  });

  it('several checks from a config file, run together; a bad file is refused with the line of each problem before anything is sent', async () => {
    const config = join(dir, 'health.yaml');
    writeFileSync(
      config,
      [
        'checks:',
        '  - kind: rollout',
        '    name: web restarts',
        '    target: deploy/web',
        `    namespace: ${ns}`,
        '    maxConverge: 90s',
        '  - kind: lease',
        '    lease: kube-system/kube-scheduler',
        '    maxRenewAge: 10s',
        '    window: 5s',
        '  - kind: queue',
        `    metrics: [${kcmMetrics}]`,
        '    insecureSkipTlsVerify: true',
        '    maxDepth: { deployment: 50 }',
        '    window: 5s',
        '',
      ].join('\n'),
    );
    const junit = join(dir, 'config.xml');
    const r = await check(createLeaseWatchProgram, ['--config', config, '--junit', junit, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const rep = report(r);
    expect(rep.command).toBe('kubectl lease-watch check');
    expect(rep.checks.map((x) => [x.name, x.kind, x.origin.line])).toEqual([
      ['web restarts', 'rollout', 2],
      ['lease kube-system/kube-scheduler', 'lease', 7],
      [`queues of ${kcmMetrics}`, 'queue', 11],
    ]);
    // Run together: the whole run takes about as long as the longest check, not the sum.
    const longest = Math.max(...rep.checks.map((x) => x.durationMs));
    const sum = rep.checks.reduce((n, x) => n + x.durationMs, 0);
    expect(rep.durationMs).toBeLessThan(longest + 3_000);
    expect(rep.durationMs).toBeLessThan(sum);
    const xml = readFileSync(junit, 'utf8');
    expect(xml.match(/<testsuite /g)).toHaveLength(3);
    expect(testcases(xml).every((t) => !t.failure && !t.error)).toBe(true);

    const bad = join(dir, 'bad.yaml');
    writeFileSync(
      bad,
      [
        'checks:',
        '  - kind: rollout',
        '    target: deploy/web',
        '    maxConverge: 6o s',
        '  - kind: leese',
        '    lease: x',
        '  - kind: queue',
        '    metrics: apiserver',
        '    maxDepht: 3',
        '',
      ].join('\n'),
    );
    const refused = await runCli(createInformerTraceProgram, ['check', '--config', bad, '--kubeconfig', join(dir, 'no-such-kubeconfig')], {
      env: { GITHUB_STEP_SUMMARY: '' },
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`error: ${bad} is not a valid check config (4 problems):`);
    expect(refused.stderr).toContain(`${bad}:4:18: checks[0].maxConverge: "6o s" is not a duration (e.g. 500ms, 30s, 2m, 1h)`);
    expect(refused.stderr).toContain(`${bad}:5:11: checks[1].kind: "leese" is not a kind of check (did you mean "lease"?): rollout, lease or queue`);
    expect(refused.stderr).toMatch(new RegExp(`${bad}:7:5: checks\\[2\\]\\.maxDepth: missing: a limit`));
    expect(refused.stderr).toMatch(new RegExp(`${bad}:9:5: checks\\[2\\]\\.maxDepht: unknown key for a queue check \\(did you mean "maxDepth"\\?\\)`));
    // Refused before connecting: the kubeconfig that does not exist was never read.
    expect(refused.stderr).not.toContain('no-such-kubeconfig');
  });

  it('lease, failing: the holder is killed, the renew age passes --max-renew-age and the check ends early', async () => {
    const junit = join(dir, 'lease-fail.xml');
    try {
      const live = startCli(createLeaseWatchProgram, [
        'check',
        '--lease',
        'kube-system/kube-controller-manager',
        '--max-renew-age',
        '5s',
        '--max-transitions',
        '3',
        '--window',
        '60s',
        '--junit',
        junit,
        '-o',
        'json',
        '--kubeconfig',
        kubeconfig,
      ]);
      await eventually('the lease check to start watching', async () => live.stderr().includes('watching for'), 30_000, 50);
      const killedAt = Date.now();
      await c.killComponent('kube-controller-manager');
      const r = await live.done;
      expect(r.code, r.stderr).toBe(1);
      // Ends when the limit is passed, long before the 60 s window.
      expect(Date.now() - killedAt).toBeLessThan(25_000);
      expect(r.stderr).toContain('the renew age limit was exceeded: ending early');
      const results = report(r).checks[0]!.results;
      const age = results.find((x) => x.name === 'renew age')!;
      expect(age.status).toBe('failed');
      expect(age.measured).toBeGreaterThan(5_000);
      expect(age.message).toMatch(
        /^no renewal for [\d.]+s since \S+, over the 5\.00s limit \(holder \S+, (valid|expiring)\) \(watched [\d.]+s of the 1m window: the renew age limit was exceeded\)$/,
      );
      expect(results.find((x) => x.name === 'transitions')).toMatchObject({ status: 'passed', measured: 0 });
      const cases = testcases(readFileSync(junit, 'utf8'));
      expect(cases[0]!.failure).toMatch(/^renew age: [\d.]+s \(limit 5\.00s\): no renewal for /);
      expect(cases[1]!.failure).toBeUndefined();
    } finally {
      await c.startComponentAgain('kube-controller-manager');
    }
  });
});
