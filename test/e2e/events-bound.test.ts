/**
 * The trace's Events are bounded, against the real API server: while a trace --watch follows a
 * rollout whose new Pod never gets ready (simulated by kwok), 10,000 events.k8s.io/v1 Events about
 * the Deployment are created, 32 at a time. Then the template is fixed, and the trace follows that
 * rollout to its convergence as it would without them: it reads at most 100 Events about the
 * object (the cap per object), says so in one note when it starts cutting, and its summary says in
 * one line how many it cut in all. Its output stays a few screens long.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInformerTraceProgram } from '../../src/commands/informer-trace.js';
import type { KubeObject } from '../../src/kube/index.js';
import { SIMULATE_ANNOTATION } from '../../tools/cluster/kwok-stages.js';
import {
  adminKube,
  cluster,
  clusterHealthy,
  createWorkloadNamespace,
  deleteNamespace,
  deploymentAvailable,
  deploymentManifest,
  startCli,
  stderrLine,
  uniqueName,
} from './helpers.js';

const kube = adminKube();
const ns = uniqueName('it-events');
const EVENTS = 10_000;
const CONCURRENCY = 32;
const CAP = 100;

/** An Event's eventTime: RFC 3339 with microseconds. */
const microTime = (ms: number): string => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

const patchTemplate = (annotations: Record<string, string | null>): Promise<unknown> =>
  kube.client.json(`/apis/apps/v1/namespaces/${ns}/deployments/web`, {
    method: 'PATCH',
    contentType: 'application/merge-patch+json',
    body: { spec: { template: { metadata: { annotations } } } },
  });

describe('a trace whose target has 10,000 Events', () => {
  beforeAll(async () => {
    await createWorkloadNamespace(kube, ns);
    // Its Pods go at once when scaled down, so that the trace ends at the convergence, not 30 s later.
    const manifest = deploymentManifest('web', 1) as { spec: { template: { spec: Record<string, unknown> } } };
    manifest.spec.template.spec.terminationGracePeriodSeconds = 0;
    await kube.client.json(`/apis/apps/v1/namespaces/${ns}/deployments`, { method: 'POST', body: manifest });
    await deploymentAvailable(kube, ns, 'web', 1);
  });

  afterAll(async () => {
    await deleteNamespace(kube, ns);
    await clusterHealthy(kube, [ns]);
  });

  it('reads at most 100 Events about one object, says once that it cuts and in one line how many, and still follows the rollout to convergence', async () => {
    const dep = await kube.client.json<KubeObject>(`/apis/apps/v1/namespaces/${ns}/deployments/web`);
    const cli = startCli(createInformerTraceProgram, [
      'deploy/web',
      '--watch',
      '-n',
      ns,
      '--kubeconfig',
      cluster().kubeconfigPath,
      '-o',
      'table',
      '--timeout',
      '150s',
    ]);
    await stderrLine(cli, /^watching Deployment\/web for a change/);
    // The change: a new template whose Pod never gets ready, so the trace goes on during the flood.
    await patchTemplate({ [SIMULATE_ANNOTATION]: 'never-ready' });
    const floodStart = Date.now();
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
    const floodMs = Date.now() - floodStart;
    expect(refused).toBe(0);
    // Fixed: the next rollout converges, and the trace ends with it.
    const fixedAt = Date.now();
    await patchTemplate({ [SIMULATE_ANNOTATION]: null, 'example.com/fixed': 'yes' });

    const r = await cli.done;
    process.stderr.write(
      `events-bound e2e: ${EVENTS} Events created in ${(floodMs / 1000).toFixed(1)}s; the trace ended ${((Date.now() - fixedAt) / 1000).toFixed(1)}s after the fix\n`,
    );
    const tail = `flood ${floodMs} ms\n${r.stdout.slice(-3000)}\n${r.stderr}`;
    expect(r.code, tail).toBe(0);
    expect(Date.now() - fixedAt, tail).toBeLessThan(30_000);
    const lines = r.stdout.split('\n');
    expect(lines[lines.findIndex((l) => /^Deployment\/web in /.test(l))], tail).toMatch(/: converged — Deployment\/web converged: /);
    // Still works: the fixed rollout's new Pod, created and ready.
    expect(
      lines.some((l) => /Pod\/web-\S+ +created/.test(l)),
      tail,
    ).toBe(true);
    expect(
      lines.some((l) => /Pod\/web-\S+ +ready/.test(l)),
      tail,
    ).toBe(true);

    // One note when the cutting began, in one line, and the total in the summary, in one line.
    const notes = lines.filter((l) => l.startsWith('info: Events not read: '));
    expect(notes, tail).toHaveLength(1);
    expect(notes[0]).toMatch(/past 100 Events per object \(\d+ about Deployment\/web\); later ones are counted, not said \(the total is in the summary\)$/);
    const totals = lines.filter((l) => l.startsWith('Events not read: '));
    expect(totals, tail).toHaveLength(1);
    const m = /^Events not read: (\d+) Event versions past 100 Events per object \((\d+) about Deployment\/web\)$/.exec(totals[0]!);
    expect(m, totals[0]).not.toBeNull();
    // Every flood Event reached the trace before it ended: all but the 100 it read were cut (and the
    // controller's own Events about the Deployment since the change count toward the 100 too).
    const about = await kube.client.json<{ items: { reportingController?: string; regarding?: { uid?: string } }[] }>(
      `/apis/events.k8s.io/v1/namespaces/${ns}/events?fieldSelector=regarding.uid%3D${dep.metadata.uid}`,
    );
    const others = about.items.filter((e) => e.reportingController !== 'example.com/flood').length;
    const cut = Number(m![1]);
    expect(cut).toBeGreaterThanOrEqual(EVENTS - CAP);
    expect(cut).toBeLessThanOrEqual(EVENTS + others - CAP);
    // Bounded: at most 100 Events listed under the hops, and a few screens of output in all.
    expect(lines.filter((l) => l.includes('↳ ')).length).toBeLessThanOrEqual(CAP);
    expect(lines.filter((l) => /flood \d+/.test(l)).length).toBeLessThanOrEqual(CAP);
    expect(lines.length, tail).toBeLessThan(300);
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
    await deploymentAvailable(kube, ns, 'web', 1);
  }, 300_000);
});
