/**
 * deploy/'s ClusterRoles on the real control plane, as a user with a client certificate of its own
 * (made here with the cluster's CA): bound only to informer-trace-reader, it can trace a rollout
 * someone else makes, watch a Lease and scrape the API server's metrics; it cannot trigger one (a 403
 * that names the verb and resource), until informer-trace-trigger is bound in the namespace.
 * SubjectAccessReviews pin what the reader role allows and what it does not.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckReport } from '../../src/check/types.js';
import { makeClientCert } from '../../tools/cluster/pki.js';
import { createInformerTraceProgram } from '../../src/commands/informer-trace.js';
import { createLeaseWatchProgram } from '../../src/commands/lease-watch.js';
import { startCli } from '../../tools/testing/cli.js';
import type { LeaseWatchView } from '../../src/view/lease-view.js';
import {
  adminKube,
  cluster,
  createDeployment,
  createWorkloadNamespace,
  deleteNamespace,
  deploymentAvailable,
  eventually,
  runCli,
  uniqueName,
  type CliResult,
} from './helpers.js';

const USER = 'it-rbac-reader';
const kube = adminKube();
const c = cluster();
const ns = uniqueName('it-rbac');
const dir = mkdtempSync(join(tmpdir(), 'informer-trace-rbac-'));
const readerKubeconfig = join(dir, 'kubeconfig');
const RBAC = '/apis/rbac.authorization.k8s.io/v1';

interface Obj {
  kind: string;
  metadata: { name: string };
}

function manifest(file: string): Obj {
  const docs = parseAllDocuments(readFileSync(join(import.meta.dirname, '..', '..', 'deploy', file), 'utf8'));
  expect(docs).toHaveLength(1);
  return (docs[0] as { toJS(): unknown }).toJS() as Obj;
}

async function replace(collection: string, obj: Obj): Promise<void> {
  await kube.client.json(`${collection}/${obj.metadata.name}`, { method: 'DELETE' }).catch(() => undefined);
  await eventually(`${obj.kind} ${obj.metadata.name} created`, () => kube.client.json(collection, { method: 'POST', body: obj }).then(() => true), 30_000);
}

async function allowed(attrs: Record<string, unknown>): Promise<boolean> {
  const review = await kube.client.json<{ status: { allowed: boolean } }>('/apis/authorization.k8s.io/v1/subjectaccessreviews', {
    method: 'POST',
    body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: USER, ...attrs } },
  });
  return review.status.allowed;
}

function asReader(factory: typeof createInformerTraceProgram, args: string[]): Promise<CliResult> {
  return runCli(factory, [...args, '--kubeconfig', readerKubeconfig], { env: { GITHUB_STEP_SUMMARY: '' } });
}

async function restartAsAdmin(): Promise<void> {
  await kube.client.json(`/apis/apps/v1/namespaces/${ns}/deployments/web`, {
    method: 'PATCH',
    contentType: 'application/merge-patch+json',
    body: { spec: { template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': new Date().toISOString() } } } } },
  });
}

const webAvailable = (): Promise<void> => deploymentAvailable(kube, ns, 'web', 2);

describe('deploy/ RBAC: a user bound only to informer-trace-reader', () => {
  const reader = manifest('rbac-reader.yaml');
  const trigger = manifest('rbac-trigger.yaml');

  beforeAll(async () => {
    // A client certificate for USER, signed by the cluster CA in a folder of our own.
    for (const f of ['ca.crt', 'ca.key']) copyFileSync(join(c.dir, 'pki', f), join(dir, f));
    await makeClientCert(dir, { file: 'reader', user: USER, groups: [] });
    writeFileSync(
      readerKubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- name: local',
        '  cluster:',
        `    server: ${c.server}`,
        `    certificate-authority: ${join(dir, 'ca.crt')}`,
        'users:',
        `- name: ${USER}`,
        '  user:',
        `    client-certificate: ${join(dir, 'reader.crt')}`,
        `    client-key: ${join(dir, 'reader.key')}`,
        'contexts:',
        '- name: local',
        `  context: {cluster: local, user: ${USER}, namespace: default}`,
        'current-context: local',
        '',
      ].join('\n'),
    );
    await replace(`${RBAC}/clusterroles`, reader);
    await replace(`${RBAC}/clusterroles`, trigger);
    await replace(`${RBAC}/clusterrolebindings`, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: USER },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: reader.metadata.name },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: USER }],
    } as Obj);
    await createWorkloadNamespace(kube, ns);
    await createDeployment(kube, ns, 'web', 2);
    await webAvailable();
  });

  afterAll(async () => {
    await kube.client.json(`${RBAC}/clusterrolebindings/${USER}`, { method: 'DELETE' }).catch(() => undefined);
    await deleteNamespace(kube, ns);
    // It holds a copy of the cluster CA's key.
    rmSync(dir, { recursive: true, force: true });
  });

  it('the reader role allows exactly the verbs the tools use, and nothing that writes or reads Secrets', async () => {
    expect(reader.metadata.name).toBe('informer-trace-reader');
    const yes = [
      { resourceAttributes: { verb: 'list', group: 'apps', resource: 'deployments', namespace: ns } },
      { resourceAttributes: { verb: 'watch', group: '', resource: 'pods', namespace: ns } },
      { resourceAttributes: { verb: 'watch', group: 'events.k8s.io', resource: 'events', namespace: ns } },
      { resourceAttributes: { verb: 'list', group: 'coordination.k8s.io', resource: 'leases', namespace: 'kube-system' } },
      { resourceAttributes: { verb: 'watch', group: 'coordination.k8s.io', resource: 'leasecandidates', namespace: 'kube-system' } },
      { resourceAttributes: { verb: 'get', group: '', resource: 'pods', subresource: 'proxy', namespace: 'kube-system' } },
      { resourceAttributes: { verb: 'get', group: '', resource: 'services', subresource: 'proxy', namespace: 'kube-system' } },
      { nonResourceAttributes: { verb: 'get', path: '/metrics' } },
    ];
    const no = [
      { resourceAttributes: { verb: 'patch', group: 'apps', resource: 'deployments', namespace: ns } },
      { resourceAttributes: { verb: 'get', group: 'apps', resource: 'deployments', namespace: ns } },
      { resourceAttributes: { verb: 'list', group: '', resource: 'secrets', namespace: ns } },
      { resourceAttributes: { verb: 'update', group: 'coordination.k8s.io', resource: 'leases', namespace: 'kube-system' } },
      { resourceAttributes: { verb: 'create', group: '', resource: 'pods', namespace: ns } },
      { resourceAttributes: { verb: 'list', group: '', resource: 'configmaps', namespace: ns } },
    ];
    for (const a of yes) expect(await allowed(a), JSON.stringify(a)).toBe(true);
    for (const a of no) expect(await allowed(a), JSON.stringify(a)).toBe(false);
  });

  it('traces a rollout someone else makes (--watch) with list and watch only', async () => {
    const live = startCli(
      createInformerTraceProgram,
      ['deploy/web', '-n', ns, '--watch', '-o', 'json', '--timeout', '120s', '--kubeconfig', readerKubeconfig],
      { ...process.env, CI: 'true' },
    );
    await eventually('the trace to start watching', async () => live.stderr().includes('watching'), 60_000, 50);
    await restartAsAdmin();
    const { code, stdout: out, stderr: err } = await live.done;
    expect(err).not.toMatch(/^(error|warning)/m);
    expect(code, err).toBe(0);
    const trace = JSON.parse(out) as { outcome: string; hops: { kind: string; object: { kind: string }; events: { reason: string }[] }[] };
    expect(trace.outcome).toBe('converged');
    expect(trace.hops.filter((h) => h.kind === 'created' && h.object.kind === 'Pod')).toHaveLength(2);
    // Events were readable: the scheduler's Scheduled event explains a hop.
    expect(trace.hops.some((h) => h.events.some((e) => e.reason === 'Scheduled'))).toBe(true);
    await webAvailable();
  });

  it("watches a Lease, and scrapes the API server's /metrics in a queue check", async () => {
    const leases = await asReader(createLeaseWatchProgram, ['kube-system/kube-scheduler', '-o', 'json']);
    expect(leases.code, leases.stderr).toBe(0);
    const view = JSON.parse(leases.stdout) as LeaseWatchView;
    expect(view.leases).toHaveLength(1);
    expect(view.leases[0]!.holder).toMatch(/\S/);
    // This control plane runs client-go's own leader election: LeaseCandidates are not served, and
    // nothing is said about them (test/e2e/coordinated-election.test.ts reads them with this role).
    expect(leases.stderr).not.toContain('candidates');
    expect(view.candidates.access).toBe('not served');
    expect(view.leases[0]!.candidates).toBeNull();

    const queues = await asReader(createInformerTraceProgram, ['check', '--metrics', 'apiserver', '--max-depth', '100000', '--window', '2s', '-o', 'json']);
    expect(queues.code, queues.stderr).toBe(0);
    const rep = JSON.parse(queues.stdout) as CheckReport;
    expect(rep.checks[0]!.results[0]).toMatchObject({ name: 'depth', status: 'passed' });
  });

  it('cannot trigger a rollout: a 403 that names the verb, resource and namespace; with informer-trace-trigger bound, it can', async () => {
    const refused = await asReader(createInformerTraceProgram, ['deploy/web', '-n', ns, '--restart', '-o', 'json']);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain(`error: forbidden: user "${USER}" may not patch deployments.apps/web in namespace ${ns} (403)`);
    expect(refused.stderr).toContain(`hint: confirm with: kubectl auth can-i patch deployments.apps/web -n ${ns}`);

    // The same through check: an error result, exit 3, and the 403 in the report.
    const check = await asReader(createInformerTraceProgram, ['check', '--restart', 'deploy/web', '-n', ns, '--max-converge', '60s', '-o', 'json']);
    expect(check.code).toBe(3);
    const result = (JSON.parse(check.stdout) as CheckReport).checks[0]!.results[0]!;
    expect(result).toMatchObject({ status: 'error', exitCode: 3 });
    expect(result.message).toContain(`forbidden: user "${USER}" may not patch deployments.apps/web in namespace ${ns} (403)`);

    await kube.client.json(`${RBAC}/namespaces/${ns}/rolebindings`, {
      method: 'POST',
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'trigger' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: trigger.metadata.name },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: USER }],
      },
    });
    await eventually(
      'the trigger binding to take effect',
      () => allowed({ resourceAttributes: { verb: 'patch', group: 'apps', resource: 'deployments', namespace: ns } }),
      30_000,
    );
    const ok = await asReader(createInformerTraceProgram, ['check', '--restart', 'deploy/web', '-n', ns, '--max-converge', '90s', '-o', 'json']);
    expect(ok.code, ok.stderr).toBe(0);
    expect((JSON.parse(ok.stdout) as CheckReport).passed).toBe(true);
  });
});
