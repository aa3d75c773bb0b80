/**
 * The three live views as a person sees them: the real binaries in a real terminal (tmux), against
 * the local control plane, at 80x24 and then 160x45. What is checked, at both sizes and across the
 * resize: every frame fits the terminal (no row or column past its size, the header on the top
 * row), the view runs on the alternate screen with the cursor hidden, the keys do what `?` lists
 * (scroll and follow, the filter, Enter for the detail, Esc back, tab), q leaves the terminal as it
 * was (normal screen, cursor shown), no frame reached the scrollback, and the final summary is
 * printed once, a line per message.
 *
 * Each step waits for what it expects on the screen (polling capture-pane with a deadline).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminKube, cluster, createDeployment, createWorkloadNamespace, deleteNamespace, deploymentAvailable, eventually, uniqueName } from './helpers.js';
import { closeTerminals, Terminal, tmuxInstalled } from './terminal.js';

const c = cluster();
const kube = adminKube();
const ns = uniqueName('it-tui');
const count = (text: string, needle: string): number => text.split(needle).length - 1;

beforeAll(async () => {
  if (!tmuxInstalled()) throw new Error('the TUI end-to-end tests need tmux on PATH (apt-get install -y tmux)');
  await createWorkloadNamespace(kube, ns);
  await createDeployment(kube, ns, 'web', 4);
  await deploymentAvailable(kube, ns, 'web', 4);
});

afterAll(async () => {
  closeTerminals();
  await deleteNamespace(kube, ns);
});

describe('kubectl informer-trace TYPE/NAME on a terminal', () => {
  it('fits 80x24 and 160x45, scrolls, filters, opens a hop, and leaves one summary and a clean terminal', async () => {
    const t = Terminal.start('trace', 80, 24, ['bin/kubectl-informer_trace', 'deployment/web', '-n', ns, '--restart', '-o', 'tui']);
    try {
      const header = `Deployment/web in ${ns} · restarted`;
      await t.waitFor('─ Timeline ·');
      expect(t.modes()).toEqual({ alternate: true, cursor: false });
      t.expectFits(header);
      // The rollout of 4 Pods ends; the view stays, showing the outcome, until q.
      let s = await t.waitFor(/^converged/m, 120_000);
      t.expectFits(header);
      expect(s).toMatch(/following( · \d+-\d+ of \d+)? ─$/m);

      // Scroll: up pauses the follow, G resumes it.
      t.keys('k');
      await t.waitFor('paused · G or f to follow');
      t.keys('G');
      await t.waitFor(/following( · \d+-\d+ of \d+)? ─$/m);

      // Filter by kind: only the ReplicaSets' hops, counted in the title.
      t.keys('/');
      await t.waitFor('Enter keep · Esc clear');
      t.type('replicaset');
      t.keys('Enter');
      s = await t.waitFor('filter: replicaset');
      const hops = /─ Timeline · (\d+) of (\d+) hops/.exec(s);
      expect(hops, s).not.toBeNull();
      expect(Number(hops![1])).toBeLessThan(Number(hops![2]));
      const timeline = s.split('\n').slice(s.split('\n').findIndex((l) => l.startsWith('─ Timeline')) + 1);
      for (const line of timeline.filter((l) => /^\+\d/.test(l))) expect(line).toContain('ReplicaSet/web-');

      // Enter opens the selected hop: times, where the server time comes from, owners, Events, changes.
      t.keys('Enter');
      s = await t.waitFor('─ Hop ');
      t.expectFits(header);
      expect(s).toMatch(/^ReplicaSet\/web-\S+ /m);
      expect(s).toContain('received    +');
      expect(s).toMatch(/^server {6}\S/m);
      expect(s).toMatch(/^owners {6}ReplicaSet\/web-\S+ ← Deployment\/web/m);
      expect(s).toMatch(/^Events \(\d+\)/m);
      t.keys('Escape');
      // The footer shows the filter in the detail too: wait for the detail to close first, or the
      // second Escape arrives in the same read as the first.
      await t.waitFor((screen) => !screen.includes('─ Hop ') && screen.includes('filter: replicaset'));
      t.keys('Escape');
      s = await t.waitFor(/─ Timeline · \d+ hops/);
      expect(s).not.toContain('filter:');

      // ? lists the keys just used.
      t.keys('?');
      s = await t.waitFor('─ Keys ');
      for (const k of ['↑/↓ j/k', 'PgUp/PgDn', 'g / G', '/ ', 'Enter', 'Esc / Backspace', 'tab / shift+tab', 'q / Ctrl+C']) expect(s).toContain(k);
      t.keys('?');
      await t.waitFor('─ Timeline ·');

      // Tab moves the focus to the next pane, and the keys act there.
      expect(t.focusedPane()).toBe('Timeline');
      t.keys('Tab');
      await t.waitFor(() => t.focusedPane() === 'Internals');
      t.keys('Tab');
      await t.waitFor(() => t.focusedPane() === 'Tree');
      t.keys('BTab');
      await t.waitFor(() => t.focusedPane() === 'Internals');

      // Bigger: the frame follows the terminal.
      t.resize(160, 45);
      await t.waitFor((screen) => screen.split('\n').some((l) => l.startsWith('─ Timeline') && [...l].length > 100));
      expect(t.size()).toEqual({ width: 160, height: 45 });
      t.expectFits(header);
      // And back to 80x24.
      t.resize(80, 24);
      await t.waitFor((screen) => screen.split('\n').every((l) => [...l].length <= 80) && screen.split('\n')[0]!.includes(header));
      t.expectFits(header);

      t.keys('q');
      await t.waitFor(/^EXIT \d+/m);
      expect(t.modes()).toEqual({ alternate: false, cursor: true });
      const history = t.history();
      // No frame in the scrollback: the view's header never reached it.
      expect(count(history, header)).toBeLessThanOrEqual(1);
      expect(count(history, '─ Timeline')).toBe(0);
      // The summary once, a line per message; the write said once before the view.
      expect(count(history, 'BEFORE-THE-VIEW')).toBe(1);
      expect(count(history, 'wrote: restarted deployments.apps/web')).toBe(1);
      expect(history).toMatch(new RegExp(`^Deployment/web in ${ns}: converged — .*$`, 'm'));
      expect(count(history, `Deployment/web in ${ns}: converged`)).toBe(1);
      expect(history).toMatch(/^time to converge: \S+$/m);
      expect(count(history, 'time to converge:')).toBe(1);
      expect(history).toMatch(/^slowest hop: /m);
      expect(history).toMatch(/^EXIT 0$/m);
    } finally {
      t.close();
    }
  });

  it('diagnoses a stuck trace on screen: by itself on a stall and at the timeout, and on d', async () => {
    // Pods too big for any node: the scheduler has said so before the trace starts.
    await createDeployment(kube, ns, 'huge', 1, { cpu: '100' });
    await eventually('a huge Pod unschedulable', async () => {
      const pods = await kube.client.json<{ items: { status?: { conditions?: { type: string; reason?: string }[] } }[] }>(`/api/v1/namespaces/${ns}/pods`, {
        query: { labelSelector: 'app=huge' },
      });
      return pods.items.some((p) => p.status?.conditions?.some((c) => c.type === 'PodScheduled' && c.reason === 'Unschedulable'));
    });
    const t = Terminal.start('stuck', 80, 24, [
      'bin/kubectl-informer_trace',
      'deployment/huge',
      '-n',
      ns,
      '--restart',
      '--stall',
      '3s',
      '--timeout',
      '40s',
      '-o',
      'tui',
    ]);
    try {
      const header = `Deployment/huge in ${ns} · restarted`;
      // No new hop for 3s: the diagnosis opens by itself, within the screen.
      let s = await t.waitFor('─ Diagnosis · no new hop for ', 60_000);
      t.expectFits(header);
      expect(s).toContain('diagnosis: broken at "scheduled"');
      expect(s).toContain('Insufficient cpu');
      t.keys('Escape');
      await t.waitFor('─ Timeline ·');
      // d computes one now from the trace's caches.
      t.keys('d');
      s = await t.waitFor((screen) => screen.includes('─ Diagnosis · on demand at ') && screen.includes('broken at "scheduled"'));
      t.expectFits(header);
      expect(s).toContain('Insufficient cpu');
      expect(s).toContain('Esc back · ↑/↓ scroll');
      // The end of the diagnosis is a scroll away: the next commands and the links.
      t.keys('G');
      // (The links line wraps at 80 columns.)
      s = await t.waitFor('scheduled BROKEN');
      t.expectFits(header);
      expect(s).toMatch(/^links: spec ok · /m);
      expect(s).toMatch(/^ {2}kubectl describe pod huge-\S+ -n /m);
      t.keys('Escape');
      await t.waitFor('─ Timeline ·');
      // The timeout: the trace's last diagnosis is shown there too.
      s = await t.waitFor('─ Diagnosis · timed out after 40.0s ', 90_000);
      t.expectFits(header);
      expect(s).toContain('broken at "scheduled"');
      t.keys('q');
      await t.waitFor(/^EXIT \d+/m);
      const history = t.history();
      // Nothing of it leaked past the view while it ran: the diagnosis once, after it, with the summary.
      expect(count(history, '─ Diagnosis')).toBe(0);
      expect(count(history, 'diagnosis: broken at "scheduled"')).toBe(1);
      expect(count(history, 'no new hop for')).toBe(0);
      expect(history).toMatch(new RegExp(`^Deployment/huge in ${ns}: timeout`, 'm'));
      expect(history).toMatch(/^EXIT 1$/m);
    } finally {
      t.close();
      await kube.client.json(`/apis/apps/v1/namespaces/${ns}/deployments/huge`, { method: 'DELETE' }).catch(() => undefined);
    }
  });
});

describe('kubectl lease-watch on a terminal', () => {
  it('fits both sizes, filters and opens a lease, and prints one summary on q', async () => {
    const t = Terminal.start('leases', 80, 24, ['bin/kubectl-lease_watch', '-n', 'kube-system', '-o', 'tui']);
    try {
      const header = 'lease-watch namespace kube-system';
      let s = await t.waitFor(/─ Leader leases · [1-9]/);
      expect(t.modes()).toEqual({ alternate: true, cursor: false });
      t.expectFits(header);
      expect(s).toContain('kube-system/kube-controller-manager');

      t.keys('/');
      t.type('scheduler');
      t.keys('Enter');
      s = await t.waitFor(/─ Leader leases · 1 of \d+/);
      expect(s).toContain('kube-system/kube-scheduler');
      expect(s).not.toContain('kube-system/kube-controller-manager ');
      t.keys('Enter');
      s = await t.waitFor('─ Lease ');
      expect(s).toMatch(/^kube-system\/kube-scheduler$/m);
      expect(s).toMatch(/^holder {7}\S+/m);
      expect(s).toMatch(/^Holders while we watched \(\d+\)$/m);
      t.keys('Escape');
      await t.waitFor((screen) => !screen.includes('─ Lease ') && screen.includes('filter: scheduler'));
      t.keys('Escape');
      await t.waitFor((screen) => !screen.includes('filter:') && screen.includes('─ Leader leases'));

      t.keys('?');
      s = await t.waitFor('─ Keys ');
      expect(s).toContain('RENEWED: time since the record last changed');
      t.keys('Escape');
      await t.waitFor('─ Leader leases');

      t.resize(160, 45);
      await t.waitFor((screen) => screen.split('\n').some((l) => l.startsWith('─ Leader leases') && [...l].length > 100));
      t.expectFits(header);

      t.keys('q');
      await t.waitFor(/^EXIT \d+/m);
      expect(t.modes()).toEqual({ alternate: false, cursor: true });
      const history = t.history();
      expect(count(history, header)).toBe(0);
      expect(count(history, '─ Leader leases')).toBe(0);
      expect(history).toMatch(/^lease-watch: \d+ leader leases?, \d+ holder changes? seen$/m);
      expect(count(history, 'lease-watch: ')).toBe(1);
      expect(history).toMatch(/^ {2}kube-system\/kube-controller-manager: \S+ \(valid, \d+ transitions\)$/m);
      expect(history).toMatch(/^EXIT 0$/m);
    } finally {
      t.close();
    }
  });
});

describe('kubectl informer-trace queues on a terminal', () => {
  it('shows the controller manager queues within the terminal, filters, opens a queue, and prints the table once on q', async () => {
    const urls = (['kube-controller-manager', 'kube-controller-manager-2'] as const).filter((n) => c.pid(n) !== undefined).map((n) => c.metricsUrl(n));
    const metrics = urls.flatMap((u) => ['--metrics', u]);
    const t = Terminal.start('queues', 80, 24, [
      'bin/kubectl-informer_trace',
      'queues',
      ...metrics,
      '--metrics-insecure-skip-tls-verify',
      '--all',
      '--interval',
      '1s',
      '-o',
      'tui',
    ]);
    try {
      const header = 'UTC · every 1.00s';
      await t.waitFor(/^ {2}deployment /m);
      expect(t.modes()).toEqual({ alternate: true, cursor: false });
      t.expectFits(header);

      t.keys('/');
      t.type('replicaset');
      t.keys('Enter');
      let s = await t.waitFor('filter: replicaset');
      const queueRows = s.split('\n').filter((l) => /^ {2}\S/.test(l) && !l.startsWith('  QUEUE') && !l.startsWith('  controller'));
      expect(queueRows.length).toBeGreaterThan(0);
      for (const r of queueRows) expect(r).toContain('replicaset');
      // Select the first queue row and open it.
      t.keys('g', 'j', 'j');
      t.keys('Enter');
      s = await t.waitFor('─ Detail ');
      expect(s).toMatch(/^queue \S*replicaset\S* of /m);
      expect(s).toMatch(/^depth {7}\S+$/m);
      t.keys('Escape');
      await t.waitFor('─ Controller queues');

      t.resize(160, 45);
      await t.waitFor((screen) => screen.split('\n').some((l) => l.startsWith('─ Controller queues') && [...l].length > 100));
      t.expectFits(header);

      t.keys('q');
      await t.waitFor(/^EXIT \d+/m);
      expect(t.modes()).toEqual({ alternate: false, cursor: true });
      const history = t.history();
      expect(count(history, '─ Controller queues')).toBe(0);
      // The last snapshot, once, as -o table prints it.
      expect(history.match(/^SOURCE +STATE/gm)).toHaveLength(1);
      expect(history.match(/^QUEUE +DEPTH +ADDS\/S/gm)).toHaveLength(1);
      expect(history).toMatch(/^replicaset +\d/m);
    } finally {
      t.close();
    }
  });
});
