/**
 * The trace's Events are bounded, against the real API server: while a trace --watch follows a
 * rollout that cannot finish (its new Pod never ready, simulated by kwok), 10,000 events.k8s.io/v1
 * Events about the Deployment are created, 16 at a time, well within its --timeout. The trace ends at it,
 * shows at most 100 of those Events (the cap per object), and says in one line how many it cut.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInformerTraceProgram } from '../../src/commands/informer-trace.js';
import { SIMULATE_ANNOTATION } from '../../tools/cluster/kwok-stages.js';
import type { KubeObject } from '../../src/kube/index.js';
import {
  adminKube,
  cluster,
  clusterHealthy,
  createDeployment,
  createWorkloadNamespace,
  deleteNamespace,
  deploymentAvailable,
  startCli,
  stderrLine,
  uniqueName,
} from './helpers.js';

const kube = adminKube();
const ns = uniqueName('it-events');
const EVENTS = 10_000;
const CONCURRENCY = 16;

/** An Event's eventTime: RFC 3339 with microseconds. */
const microTime = (ms: number): string => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

describe('a trace whose target has 10,000 Events', () => {
  beforeAll(async () => {
    await createWorkloadNamespace(kube, ns);
    await createDeployment(kube, ns, 'web', 1);
    await deploymentAvailable(kube, ns, 'web', 1);
  });

  afterAll(async () => {
    await deleteNamespace(kube, ns);
    await clusterHealthy(kube, [ns]);
  });

  it('shows at most 100 Events about one object, says what it cut, and ends at its timeout', async () => {
    const dep = await kube.client.json<KubeObject>(`/apis/apps/v1/namespaces/${ns}/deployments/web`);
    const cli = startCli(createInformerTraceProgram, ['deploy/web', '--watch', '-n', ns, '--kubeconfig', cluster().kubeconfigPath, '--timeout', '150s']);
    await stderrLine(cli, /^watching Deployment\/web for a change/);
    // The change: a new template whose Pod never gets ready, so the trace runs until its timeout.
    await kube.client.json(`/apis/apps/v1/namespaces/${ns}/deployments/web`, {
      method: 'PATCH',
      contentType: 'application/merge-patch+json',
      body: { spec: { template: { metadata: { annotations: { [SIMULATE_ANNOTATION]: 'never-ready' } } } } },
    });
    let next = 0;
    let refused = 0;
    const worker = async (): Promise<void> => {
      for (let i = next++; i < EVENTS; i = next++) {
        await kube.client
          .json(`/apis/events.k8s.io/v1/namespaces/${ns}/events`, {
            method: 'POST',
            body: {
              apiVersion: 'events.k8s.io/v1',
              kind: 'Event',
              metadata: { name: `flood-${i}` },
              eventTime: microTime(Date.now()),
              reportingController: 'example.com/flood',
              reportingInstance: 'flood-1',
              action: 'Flood',
              reason: 'Flood',
              type: 'Normal',
              note: `flood ${i}`,
              regarding: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'web', uid: dep.metadata.uid },
            },
          })
          .catch(() => refused++);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    expect(refused).toBe(0);

    const r = await cli.done;
    const floodLines = r.stdout.split('\n').filter((l) => /↳ .*Flood/.test(l));
    expect(floodLines.length, r.stdout.slice(-2000)).toBeGreaterThanOrEqual(1);
    expect(floodLines.length).toBeLessThanOrEqual(100);
    const cut = r.stdout.split('\n').filter((l) => l.includes('Events not read'));
    expect(cut.length, r.stdout.slice(-2000)).toBeGreaterThanOrEqual(1);
    for (const l of cut) expect(l).toMatch(/Events not read: \d+ Event versions? past 100 Events per object \(\d+ about Deployment\/web\)/);
    // Every Event arrived before the timeout: the first 100 kept, each later one cut once.
    const total = cut.reduce((n, l) => n + Number(/not read: (\d+)/.exec(l)![1]), 0);
    expect(total).toBe(EVENTS - 100);
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
  }, 300_000);
});
