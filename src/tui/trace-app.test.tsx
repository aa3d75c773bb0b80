import { describe, expect, it } from 'vitest';
import { controlsIn, HOSTILE, HOSTILE_SHOWN, SHOWN } from '../../tools/testing/hostile.js';
import { renderInk } from '../../tools/testing/ink.js';
import type { Hop, TraceEvent, TraceSnapshot } from '../trace/index.js';
import { hop, ref, snapshot, T0 } from '../../tools/testing/trace-snapshot.js';
import { initialScreen } from '../view/screen-state.js';
import type { Diagnosis } from '../diagnose/index.js';
import { TraceApp, type DiagnosisFeed, type PushedDiagnosis } from './trace-app.js';
import { diagnosisRows, nextPane, traceLayout, type Pane } from '../view/trace-layout.js';
import { TraceScreen } from './trace-screen.js';

const hops = [
  hop('target-modified/web', 'target-modified', ref('Deployment', 'web'), 12, 12),
  hop('created/rs', 'created', ref('ReplicaSet', 'web-abc'), 40, 28),
  { ...hop('ready/p0', 'ready', ref('Pod', 'web-abc-0'), 4200, 4160), previousId: 'created/rs' },
  hop('converged/web', 'converged', ref('Deployment', 'web'), 4300, 100),
];

const W = 100;
const H = 30;
const lines = (f: string): string[] => f.split('\n');

describe('trace TUI', () => {
  it('renders the tree, the timeline with latencies and the outcome, in exactly the given rows and columns', () => {
    const ink = renderInk(
      <TraceScreen snapshot={snapshot(3, hops, 'converged')} state={initialScreen<Pane>('timeline', ['timeline'])} now={T0 + 5000} width={W} height={H} />,
    );
    const f = ink.frame();
    expect(f).toContain('Deployment/web in demo');
    expect(f).toContain('converged — Deployment/web converged: 3 updated · 4.30s');
    expect(f).toContain('ReplicaSet/web-abc 3/3 ready');
    expect(f).toMatch(/\+4\.20s\s+\(\+4\.16s\)\s+Pod\/web-abc-0\s+ready/);
    expect(f).toContain('slowest hop Pod/web-abc-0 ready +4.16s');
    expect(lines(f)).toHaveLength(H);
    for (const l of lines(f)) expect(l.length).toBeLessThanOrEqual(W);
    ink.unmount();
  });

  it("names the longest wait on the critical path as the slowest hop, not an old Pod's slower deletion off it", () => {
    const old = ref('Pod', 'web-old-0');
    const withOld = [
      hops[0]!,
      hop('terminating/old', 'terminating', old, 15, 3),
      hops[1]!,
      // 4.175s after it began terminating: a larger gap than any, but nothing waited for it.
      { ...hop('deleted/old', 'deleted', old, 4190, 4175), previousId: 'terminating/old' },
      ...hops.slice(2),
    ];
    const ink = renderInk(
      <TraceScreen snapshot={snapshot(3, withOld, 'converged')} state={initialScreen<Pane>('timeline', ['timeline'])} now={T0 + 5000} width={W} height={H} />,
    );
    const f = ink.frame();
    expect(f).toMatch(/\+4\.19s\s+\(\+4\.1\ds\)\s+Pod\/web-old-0\s+deleted/);
    expect(f).toContain('slowest hop Pod/web-abc-0 ready +4.16s');
    ink.unmount();
  });

  it('says the watches that stalled and resumed: on the status line, and per informer in the internals', () => {
    const informer = (description: string, watchStalls: number) =>
      ({
        name: description,
        description,
        objects: 1,
        events: { ADDED: 1, MODIFIED: 0, DELETED: 0, BOOKMARK: 0, ERROR: 0 },
        bookmarks: 0,
        relists: 0,
        watchRestarts: watchStalls,
        watchStalls,
        backlog: 0,
      }) as unknown as TraceSnapshot['informers'][number];
    const snap = { ...snapshot(1, hops, 'converged'), informers: [informer('deployments.apps in demo', 0), informer('pods in demo', 1)] };
    const ink = renderInk(<TraceScreen snapshot={snap} state={initialScreen<Pane>('internals', ['timeline'])} now={T0 + 5000} width={160} height={H} />);
    const f = ink.frame();
    expect(f).toContain('1 watch stalled and resumed (pods in demo)');
    expect(f).toContain('pods in demo: 1 objects · +1 ~0 -0 · 0 bookmarks · 0 relists · 1 watch restarts (1 stalled) · backlog 0');
    expect(f).toContain('deployments.apps in demo: 1 objects · +1 ~0 -0 · 0 bookmarks · 0 relists · 0 watch restarts · backlog 0');
    ink.unmount();
  });

  it('fits 80x24 with a 10,000-Pod tree: the focused pane gets the rows, the others keep a few', () => {
    const big = snapshot(10_000, hops);
    const ink = renderInk(<TraceScreen snapshot={big} state={initialScreen<Pane>('tree', ['timeline'])} now={T0 + 5000} width={80} height={24} />);
    const f = ink.frame();
    expect(lines(f)).toHaveLength(24);
    for (const l of lines(f)) expect(l.length).toBeLessThanOrEqual(80);
    expect(f).toContain('Pod/web-abc-11 ');
    expect(f).toContain('ReplicaSet/web-abc 10000/10000 ready');
    expect(traceLayout(big, initialScreen<Pane>('tree'), 80, 24, undefined).rows.tree.at(-1)!.text).toBe('… 9502 more');
    // The timeline still shows its newest hops.
    expect(f).toContain('converged');
    ink.unmount();
  });

  it('keys: scroll and follow, filter, Enter opens the hop, Esc leaves, tab, ?, q', async () => {
    const quits: string[] = [];
    const listeners = new Set<(e: TraceEvent) => void>();
    let snap = snapshot(2, hops.slice(0, 2));
    const source = { snapshot: () => snap, subscribe: (fn: (e: TraceEvent) => void) => (listeners.add(fn), () => listeners.delete(fn)) };
    const ink = renderInk(<TraceApp source={source} onQuit={(how) => quits.push(how)} clockNow={() => T0 + 100} width={W} height={H} />);
    await ink.waitFor('Timeline · 2 hops');
    expect(ink.frame()).toContain('following');
    snap = snapshot(2, hops);
    for (const fn of listeners) fn({ type: 'hop', hop: hops[3]! });
    await ink.waitFor('Timeline · 4 hops');
    // Up leaves follow mode; G resumes it.
    ink.stdin.write('k');
    await ink.waitFor('paused · G or f to follow');
    ink.stdin.write('G');
    await ink.waitFor('following');
    // Filter by object kind.
    ink.stdin.write('/');
    await ink.waitFor('Enter keep · Esc clear');
    ink.stdin.write('replicaset');
    await ink.waitFor('Timeline · 1 of 4 hops');
    ink.stdin.write('\r');
    await ink.waitFor('filter: replicaset');
    // Enter opens the selected (only) hop: its times, owners, events and changes.
    ink.stdin.write('\r');
    let f = await ink.waitFor('─ Hop ');
    expect(f).toContain('ReplicaSet/web-abc created');
    expect(f).toContain('received    +40ms after the trigger');
    expect(f).toContain('owners      ReplicaSet/web-abc ← Deployment/web');
    expect(f).toContain('Events (0)');
    ink.stdin.write('\u001b');
    await ink.waitFor('Timeline · 1 of 4 hops');
    ink.stdin.write('\u001b');
    await ink.waitFor('Timeline · 4 hops');
    ink.stdin.write('\t');
    f = await ink.waitFor((fr) => /─ Internals ─/.test(fr));
    ink.stdin.write('?');
    f = await ink.waitFor('─ Keys ');
    expect(f).toContain('PgUp/PgDn');
    expect(f).toContain('w                ');
    ink.stdin.write('?');
    await ink.waitFor('Timeline · 4 hops');
    ink.stdin.write('w');
    await ink.waitFor('─ Waterfall ');
    ink.stdin.write('q');
    await new Promise((r) => setTimeout(r, 20));
    expect(quits).toEqual(['quit']);
    expect(nextPane('timeline')).toBe('internals');
    expect(nextPane('internals')).toBe('tree');
    ink.unmount();
  });

  it('Ctrl+C quits as an interrupt; q typed into the filter does not quit', async () => {
    const quits: string[] = [];
    const source = { snapshot: () => snapshot(1, hops), subscribe: () => () => undefined };
    const ink = renderInk(<TraceApp source={source} onQuit={(how) => quits.push(how)} width={W} height={H} />);
    await ink.waitFor('Timeline · 4 hops');
    ink.stdin.write('/');
    await ink.waitFor('Enter keep');
    ink.stdin.write('q');
    await ink.waitFor('Timeline · 0 of 4 hops');
    expect(quits).toEqual([]);
    ink.stdin.write('\u0003');
    await new Promise((r) => setTimeout(r, 20));
    expect(quits).toEqual(['interrupt']);
    ink.unmount();
  });

  describe('diagnosis', () => {
    const stuck = (pods: number): Diagnosis => ({
      target: { kind: 'Deployment', namespace: 'demo', name: 'web' },
      at: new Date(T0).toISOString(),
      verdict: 'broken',
      link: 'scheduled',
      summary: `${pods} Pods are not scheduled: 0/2 nodes are available: 2 Insufficient cpu`,
      evidence: Array.from({ length: pods }, (_, i) => ({
        object: { kind: 'Pod', namespace: 'demo', name: `web-abc-${i}` },
        source: 'condition' as const,
        type: 'PodScheduled',
        status: 'False',
        reason: 'Unschedulable',
        message: '0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.',
        forMs: 45_000,
      })),
      next: ['kubectl describe pod web-abc-0 -n demo', 'kubectl get nodes -o wide'],
      unseen: [],
      links: [
        { link: 'spec', status: 'ok', detail: '' },
        { link: 'scheduled', status: 'broken', detail: '' },
      ],
    });
    const frameFits = (f: string, w: number, h: number): void => {
      expect(lines(f)).toHaveLength(h);
      for (const l of lines(f)) expect(l.length).toBeLessThanOrEqual(w);
    };

    it('d computes one from the caches and shows it in a pane that fits; it scrolls and Esc closes it', async () => {
      let calls = 0;
      let answer!: (d: Diagnosis) => void;
      const feed: DiagnosisFeed = {
        diagnose: () => (calls++, new Promise<Diagnosis>((r) => (answer = r))),
        subscribe: () => () => undefined,
      };
      const source = { snapshot: () => snapshot(2, hops.slice(0, 2)), subscribe: () => () => undefined };
      const ink = renderInk(<TraceApp source={source} onQuit={() => undefined} diagnoses={feed} clockNow={() => T0} width={80} height={24} />);
      await ink.waitFor('Timeline · 2 hops');
      expect(ink.frame()).toContain('d diagnose');
      ink.stdin.write('?');
      await ink.waitFor('─ Keys ');
      expect(ink.frame()).toMatch(/\bd\s+diagnose: where the chain is stuck/);
      ink.stdin.write('d');
      await ink.waitFor('─ Diagnosis · on demand at 12:00:00 ');
      expect(ink.frame()).toContain('diagnosing: reading the caches');
      expect(calls).toBe(1);
      answer(stuck(12));
      let f = await ink.waitFor('broken at "scheduled"');
      frameFits(f, 80, 24);
      expect(f).toContain('12 Pods are not scheduled: 0/2 nodes are available: 2 Insufficient cpu');
      expect(f).toContain('Pod/web-abc-0  PodScheduled=False Unschedulable: 0/2 nodes are');
      expect(f).toContain('Esc back · ↑/↓ scroll');
      // Longer than the screen: the next commands are further down; G shows the end.
      expect(f).not.toContain('kubectl get nodes -o wide');
      ink.stdin.write('G');
      f = await ink.waitFor('kubectl get nodes -o wide');
      expect(f).toContain('links: spec ok · scheduled BROKEN');
      expect(f).not.toContain('broken at "scheduled"');
      frameFits(f, 80, 24);
      ink.stdin.write('g');
      await ink.waitFor('broken at "scheduled"');
      // d again computes a fresh one.
      ink.stdin.write('d');
      await ink.waitFor('diagnosing: reading the caches');
      expect(calls).toBe(2);
      answer(stuck(1));
      await ink.waitFor('1 Pods are not scheduled');
      ink.stdin.write('\u001b');
      f = await ink.waitFor('Timeline · 2 hops');
      expect(f).not.toContain('Diagnosis');
      ink.unmount();
    });

    it('a failed diagnosis says why, on screen', async () => {
      const feed: DiagnosisFeed = {
        diagnose: () => Promise.reject(new Error('nodes is forbidden: User "viewer" cannot get resource "nodes"')),
        subscribe: () => () => undefined,
      };
      const source = { snapshot: () => snapshot(1, hops), subscribe: () => () => undefined };
      const ink = renderInk(<TraceApp source={source} onQuit={() => undefined} diagnoses={feed} width={W} height={H} />);
      await ink.waitFor('Timeline · 4 hops');
      ink.stdin.write('d');
      await ink.waitFor('no diagnosis: nodes is forbidden: User "viewer" cannot get resource "nodes"');
      ink.unmount();
    });

    it('a stall or the timeout shows the diagnosis by itself; the same finding again does not reopen it', async () => {
      const pushed = new Set<(p: PushedDiagnosis) => void>();
      const push = (p: PushedDiagnosis): void => {
        for (const fn of pushed) fn(p);
      };
      const feed: DiagnosisFeed = { diagnose: () => Promise.reject(new Error('not asked')), subscribe: (fn) => (pushed.add(fn), () => void pushed.delete(fn)) };
      const source = { snapshot: () => snapshot(2, hops.slice(0, 2)), subscribe: () => () => undefined };
      const ink = renderInk(<TraceApp source={source} onQuit={() => undefined} diagnoses={feed} width={80} height={24} />);
      await ink.waitFor('Timeline · 2 hops');
      expect(pushed.size).toBe(1);
      push({ diagnosis: stuck(2), why: 'no new hop for 20s' });
      let f = await ink.waitFor('─ Diagnosis · no new hop for 20s ');
      expect(f).toContain('broken at "scheduled"');
      expect(f).toContain('Insufficient cpu');
      frameFits(f, 80, 24);
      ink.stdin.write('\u001b');
      await ink.waitFor('Timeline · 2 hops');
      // A further stall with the same finding stays closed; the timeout opens it again.
      push({ diagnosis: stuck(2), why: 'no new hop for 40s' });
      // (w switches the main pane only when no detail is open.)
      ink.stdin.write('w');
      f = await ink.waitFor('─ Waterfall ');
      expect(f).not.toContain('Diagnosis');
      push({ diagnosis: stuck(2), why: 'timed out after 1m', ended: true });
      f = await ink.waitFor('─ Diagnosis · timed out after 1m ');
      expect(f).toContain('broken at "scheduled"');
      // While the filter is being typed, it still opens (the prompt closes).
      ink.stdin.write('\u001b');
      await ink.waitFor('─ Waterfall ');
      ink.stdin.write('/');
      await ink.waitFor('Enter keep · Esc clear');
      push({ diagnosis: stuck(3), why: 'no new hop for 20s' });
      f = await ink.waitFor('3 Pods are not scheduled');
      expect(f).not.toContain('Enter keep · Esc clear');
      ink.unmount();
      expect(pushed.size).toBe(0);
    });
  });

  describe('hostile names and messages', () => {
    const evil = ref('Pod', `web-${HOSTILE}`, 'evil');
    const evilHop: Hop = {
      ...hop('ready/evil', 'ready', evil, 4200, 4160),
      detail: `reason ${HOSTILE}`,
      events: [{ reason: 'BackOff', note: HOSTILE, time: undefined, reportingController: undefined }],
      changes: [{ path: 'metadata.annotations.x', from: 'a', to: HOSTILE }],
    };
    const hostile = (): TraceSnapshot => {
      const s = snapshot(1, [...hops.slice(0, 2), evilHop], 'failed');
      return {
        ...s,
        target: { ...s.target, name: `web${HOSTILE}` },
        trigger: { ...s.trigger!, wrote: `annotated ${HOSTILE}` },
        endMessage: HOSTILE,
        tree: { ...s.tree!, children: [...s.tree!.children, { ref: evil, status: HOSTILE, ready: false, deleting: false, node: HOSTILE, children: [] }] },
      };
    };
    const safe = (f: string): void => {
      expect(controlsIn(f, { sgr: true })).toEqual([]);
      expect(lines(f)).toHaveLength(H);
    };

    it('the header, tree, timeline and status line show them escaped, in exactly the rows given', () => {
      const ink = renderInk(<TraceScreen snapshot={hostile()} state={initialScreen<Pane>('timeline', ['timeline'])} now={T0 + 5000} width={700} height={H} />);
      const f = ink.frame();
      safe(f);
      expect(f).toContain(`Deployment/web${HOSTILE_SHOWN} in demo · annotated ${HOSTILE_SHOWN}`);
      expect(f).toContain(`failed — ${HOSTILE_SHOWN}`);
      expect(f).toContain(`Pod/web-${HOSTILE_SHOWN} ${HOSTILE_SHOWN} ${HOSTILE_SHOWN}`);
      expect(f).toContain(`BackOff: ${HOSTILE_SHOWN}`);
      ink.unmount();
    });

    it('an opened hop shows its Events and changed fields escaped, wrapped to the width', () => {
      const state = { ...initialScreen<Pane>('timeline', ['timeline']), detail: evilHop.id, detailPane: 'timeline' as const };
      const ink = renderInk(<TraceScreen snapshot={hostile()} state={state} now={T0 + 5000} width={W} height={H} />);
      const f = ink.frame();
      safe(f);
      for (const l of lines(f)) expect(l.length).toBeLessThanOrEqual(W);
      expect(f).toContain('─ Hop ');
      for (const s of SHOWN) expect(f.replace(/\s*\n\s*/g, ' ')).toContain(s);
      ink.unmount();
    });

    it('a diagnosis holding them is one row per line of the text, each escaped', () => {
      const d: Diagnosis = {
        target: { kind: 'Deployment', namespace: 'demo', name: 'web' },
        at: new Date(T0).toISOString(),
        verdict: 'broken',
        link: 'scheduled',
        summary: `not scheduled: ${HOSTILE}\nforged: healthy`,
        evidence: [
          { object: { kind: 'Pod', namespace: 'demo', name: `web-${HOSTILE}` }, source: 'event', reason: HOSTILE, message: `${HOSTILE}\nforged evidence` },
        ],
        next: [`kubectl describe pod ${HOSTILE}`],
        unseen: [{ what: 'Nodes', why: HOSTILE }],
        links: [{ link: 'scheduled', status: 'broken', detail: HOSTILE }],
      };
      const rows = diagnosisRows({ state: 'done', why: 'on demand', diagnosis: d });
      for (const r of rows) expect(controlsIn(r.text)).toEqual([]);
      expect(rows.some((r) => r.text.startsWith('forged'))).toBe(false);
      expect(rows.map((r) => r.text).join('\n')).toContain(`not scheduled: ${HOSTILE_SHOWN}\\nforged: healthy`);
      expect(d.summary).toContain(HOSTILE);
      const ink = renderInk(
        <TraceScreen
          snapshot={snapshot(1, hops)}
          state={{ ...initialScreen<Pane>('timeline'), detail: 'diagnosis' }}
          now={T0}
          width={W}
          height={H}
          diagnosis={{ state: 'done', why: `stall ${HOSTILE}`, diagnosis: d }}
        />,
      );
      safe(ink.frame());
      expect(ink.frame()).toContain(`Diagnosis · stall ${SHOWN[0]}`);
      ink.unmount();
    });
  });
});

describe('the hop detail of a custom resource', () => {
  it('reads the operator behind the target when a hop is opened, and shows its Lease under a hop it wrote', async () => {
    const w = ref('Widget', 'w');
    const written = { ...hop('condition/w', 'condition', w, 20, 20), writer: 'widget-operator (status)', detail: 'Ready False→True  Available' };
    const snap = { ...snapshot(1, [written]), target: { kind: 'Widget', namespace: 'demo', name: 'w' } };
    let reads = 0;
    const feed: DiagnosisFeed = {
      diagnose: () => Promise.reject(new Error('not asked')),
      subscribe: () => () => undefined,
      controller: async () => {
        reads++;
        return {
          manager: 'widget-operator',
          lease: {
            namespace: 'demo',
            name: 'widget-operator',
            holder: 'widget-operator-0',
            renewTime: new Date(T0 - 1_000).toISOString(),
            leaseDurationSeconds: 15,
            transitions: 0,
            foundBy: 'metrics',
          },
          queue: null,
          unseen: [],
        };
      },
    };
    const source = { snapshot: () => snap, subscribe: () => () => undefined };
    const ink = renderInk(<TraceApp source={source} onQuit={() => undefined} diagnoses={feed} clockNow={() => T0} width={W} height={H} />);
    await ink.waitFor('Timeline · 1 hops');
    expect(reads).toBe(0);
    ink.stdin.write('\r');
    const f = await ink.waitFor('Lease demo/widget-operator held by widget-operator-0, renewed 1.00s');
    expect(f).toContain('written by  widget-operator (status)');
    for (const l of lines(f)) expect(l.length).toBeLessThanOrEqual(W);
    expect(reads).toBe(1);
    ink.unmount();
  });
});
