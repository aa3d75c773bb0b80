/**
 * Strings from the cluster are untrusted: a condition's message and a Warning Event's note written
 * with terminal control sequences (clear the screen, retitle the window, overwrite a line, C1 CSI)
 * reach the diagnosis, the trace's text and the TUI escaped, visibly, and -o json exactly. On the
 * real control plane, with a custom resource whose status the test writes as a controller would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInformerTraceProgram } from '../../src/commands/informer-trace.js';
import type { Diagnosis } from '../../src/diagnose/types.js';
import type { KubeObject } from '../../src/kube/index.js';
import { controlsIn, HOSTILE, SHOWN } from '../../tools/testing/hostile.js';
import { adminKube, cluster, createCrd, createWorkloadNamespace, deleteCrd, deleteNamespace, eventually, runCli, startCli, uniqueName } from './helpers.js';
import { closeTerminals, Terminal, tmuxInstalled } from './terminal.js';

const kube = adminKube();
const ns = uniqueName('it-hostile');
const group = `${uniqueName('h')}.informer-trace.test`;
const crd = `gadgets.${group}`;
const path = (sub = ''): string => `/apis/${group}/v1/namespaces/${ns}/gadgets/g${sub}`;
const stalled = (message: string): Record<string, unknown> => ({
  observedGeneration: 1,
  conditions: [
    {
      type: 'Stalled',
      status: 'True',
      reason: 'BadInput',
      message,
      observedGeneration: 1,
      lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    },
  ],
});

beforeAll(async () => {
  if (!tmuxInstalled()) throw new Error('the TUI end-to-end tests need tmux on PATH (apt-get install -y tmux)');
  await createCrd(kube, group, { kind: 'Gadget', plural: 'gadgets' });
  await createWorkloadNamespace(kube, ns);
  const g = await kube.client.json<KubeObject>(`/apis/${group}/v1/namespaces/${ns}/gadgets`, {
    method: 'POST',
    body: { apiVersion: `${group}/v1`, kind: 'Gadget', metadata: { name: 'g' }, spec: { size: 1 } },
  });
  await kube.client.json(path('/status'), {
    method: 'PATCH',
    contentType: 'application/merge-patch+json',
    query: { fieldManager: 'gadget-controller' },
    body: { status: stalled(`stalled: ${HOSTILE}`) },
  });
  const now = new Date()
    .toISOString()
    .replace('Z', '000Z')
    .replace(/\.(\d{6})\d*Z$/, '.$1Z');
  await kube.client.json(`/apis/events.k8s.io/v1/namespaces/${ns}/events`, {
    method: 'POST',
    body: {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'g.hostile' },
      regarding: { apiVersion: `${group}/v1`, kind: 'Gadget', name: 'g', namespace: ns, uid: g.metadata.uid },
      type: 'Warning',
      reason: 'ReconcileFailed',
      note: `event: ${HOSTILE}`,
      action: 'Reconcile',
      eventTime: now,
      reportingController: 'gadget-controller',
      reportingInstance: 'gadget-controller-0',
    },
  });
});

afterAll(async () => {
  closeTerminals();
  await deleteNamespace(kube, ns);
  await deleteCrd(kube, crd);
});

/** What reaches us of HOSTILE: the API server's JSON replaces a lone surrogate with U+FFFD, and U+0001 is in no message here. */
const ARRIVES = SHOWN.filter((s) => s !== '\\x01' && s !== 'lone\\ud800');

const expectEscaped = (text: string, what: string): void => {
  expect(controlsIn(text), `${what}: raw control characters`).toEqual([]);
  for (const shown of ARRIVES) expect(text, what).toContain(shown);
};

describe('strings from the cluster, on the way to a terminal', () => {
  it('diagnose: the condition message and the Warning Event escaped in text, exact in JSON', async () => {
    const text = await runCli(createInformerTraceProgram, ['diagnose', `gadget.${group}/g`, '-n', ns, '--kubeconfig', cluster().kubeconfigPath]);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('Gadget/g: Stalled True: BadInput: stalled: ');
    expect(text.stdout).toMatch(/Gadget\/g {2}Event ReconcileFailed/);
    expectEscaped(text.stdout, 'diagnose text');
    const json = await runCli(createInformerTraceProgram, ['diagnose', `gadget.${group}/g`, '-n', ns, '--kubeconfig', cluster().kubeconfigPath, '-o', 'json']);
    const d = (JSON.parse(json.stdout) as { diagnosis: Diagnosis }).diagnosis;
    const exact = HOSTILE.replace('\ud800', '\ufffd');
    expect(d.evidence.map((e) => e.message)).toEqual(expect.arrayContaining([`stalled: ${exact}`, `event: ${exact}`]));
  });

  it('the trace: a hop and the diagnosis after its timeout, escaped in table output', async () => {
    const cli = startCli(createInformerTraceProgram, [
      `gadget.${group}/g`,
      '--watch',
      '-n',
      ns,
      '--kubeconfig',
      cluster().kubeconfigPath,
      '-o',
      'table',
      '--timeout',
      '8s',
    ]);
    await eventually('the trace to watch', async () => cli.stderr().includes('watching Gadget/g'));
    // A new generation nobody observes, and a status write with a hostile phase: hops, then a timeout.
    await kube.client.json(path(), { method: 'PATCH', contentType: 'application/merge-patch+json', body: { spec: { size: 2 } } });
    await kube.client.json(path('/status'), {
      method: 'PATCH',
      contentType: 'application/merge-patch+json',
      query: { fieldManager: 'gadget-controller' },
      body: { status: { ...stalled(`again: ${HOSTILE}`), phase: `Broken ${HOSTILE}` } },
    });
    const r = await cli.done;
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/Gadget\/g +status {2}status\.phase/);
    expect(r.stdout).toContain('diagnosis: broken at "controller-observed"');
    expect(r.stdout).toMatch(/Gadget\/g {2}Event ReconcileFailed/);
    expectEscaped(r.stdout, 'trace table');
    expect(controlsIn(r.stderr)).toEqual([]);
  });

  it('the TUI: the diagnosis pane shows them escaped, and the screen is not cleared or retitled', async () => {
    const t = Terminal.start('hostile', 100, 30, ['bin/kubectl-informer_trace', `gadget.${group}/g`, '--watch', '-n', ns, '-o', 'tui', '--timeout', '60s']);
    try {
      await t.waitFor('─ Timeline ·');
      t.keys('d');
      const s = await t.waitFor('broken at "status-conditions"');
      expect(s).toContain('\\x1b[2J');
      expect(s).toContain('\\x1b]0;pwned\\x07');
      // The header is still on the top row: nothing cleared the screen or moved the cursor home.
      t.expectFits(`Gadget/g in ${ns}`);
      t.keys('q');
      await t.waitFor(/^EXIT \d+$/m);
      expect(controlsIn(t.history())).toEqual([]);
    } finally {
      t.close();
    }
  });
});
