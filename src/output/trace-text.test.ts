import { describe, expect, it } from 'vitest';
import type { InformerStats } from '../informer/index.js';
import { FakeClock } from '../../tools/testing/fake-clock.js';
import { controlsIn, HOSTILE, HOSTILE_SHOWN, SHOWN } from '../../tools/testing/hostile.js';
import type { Hop, TraceEventRef, TraceSnapshot } from '../trace/index.js';
import { REORDER_MAX_LAG_MS, REORDER_MIN_LAG_MS, TimeOrderedTraceText, traceEventText, traceSummaryText, treeText } from './trace-text.js';

const T0 = Date.UTC(2026, 0, 1);
const COALESCE = 50;

/** A trace whose hops arrive when the test says, listed in receive order as the tracker lists them. */
function setup() {
  const clock = new FakeClock(T0);
  const list: Hop[] = [];
  const out: string[] = [];
  const text = new TimeOrderedTraceText({ clock, coalesceMs: COALESCE, hops: () => list, write: (l) => out.push(l) });
  text.push({ type: 'trigger', trigger: { kind: 'restart', wrote: 'restarted deployments.apps/web', at: T0, writes: 1 } });
  /** A hop received `at` ms after the trigger, emitted now. */
  const hop = (name: string, at: number): Hop => {
    const h: Hop = {
      id: `ready/${name}`,
      kind: 'ready',
      object: { kind: 'Pod', namespace: 'demo', name, uid: name },
      observedAt: T0 + at,
      reconciledAt: clock.now(),
      sinceTriggerMs: at,
      sincePreviousMs: at,
      events: [],
    };
    let i = list.length;
    while (i > 0 && list[i - 1]!.observedAt > h.observedAt) i--;
    list.splice(i, 0, h);
    text.push({ type: 'hop', hop: h });
    return h;
  };
  const at = async (ms: number): Promise<void> => clock.step(T0 + ms - clock.now());
  /** Each printed hop line as "NAME" or "NAME ↑ +TIME" when marked out of order; other lines as they are. */
  const printed = (): string[] =>
    out.slice(1).map((l) => {
      const m = /^\+\S+\s+\(\+\S+\)\s+Pod\/(\S+)\s.*?(?:↑ earlier: before (\+\S+))?$/.exec(l);
      return m ? (m[2] ? `${m[1]} ↑ ${m[2]}` : m[1]!) : l.trim();
    });
  return { clock, text, hop, at, printed, out };
}

describe('TimeOrderedTraceText: text in time order while streaming', () => {
  it('holds each hop for the reorder window and prints those found late in their place', async () => {
    const { hop, at, printed, out } = setup();
    expect(out[0]).toMatch(/^wrote: restarted deployments\.apps\/web/);
    await at(60);
    hop('a', 10);
    await at(163);
    hop('c', 113);
    expect(printed()).toEqual(['a']);
    // Received before c, found after it: still within the window, so it prints before c.
    await at(200);
    hop('b', 108);
    expect(printed()).toEqual(['a']);
    await at(108 + COALESCE + REORDER_MIN_LAG_MS);
    expect(printed()).toEqual(['a', 'b']);
    await at(113 + COALESCE + REORDER_MIN_LAG_MS);
    expect(printed()).toEqual(['a', 'b', 'c']);
  });

  it('marks a hop that arrives after later ones were printed, naming the line it belongs before', async () => {
    const { hop, at, printed, text } = setup();
    await at(60);
    hop('a', 10);
    hop('b', 108);
    hop('c', 113);
    await at(400);
    expect(printed()).toEqual(['a', 'b', 'c']);
    // Received at +105ms, found 500ms later (an informer's backlog): b and c are out already.
    await at(605);
    hop('late', 105);
    expect(text.windowMs()).toBe(500);
    await at(2_000);
    expect(printed()).toEqual(['a', 'b', 'c', 'late ↑ +108ms']);
    // The window grew with the worker's lag: a hop as late as that one now waits for its turn.
    await at(2_100);
    hop('e', 1_990);
    await at(2_200);
    hop('d', 1_700);
    await at(3_000);
    expect(printed()).toEqual(['a', 'b', 'c', 'late ↑ +108ms', 'd', 'e']);
  });

  it('keeps the window between its bounds', async () => {
    const { hop, at, text } = setup();
    expect(text.windowMs()).toBe(COALESCE + REORDER_MIN_LAG_MS);
    await at(60_000);
    hop('very-late', 1);
    expect(text.windowMs()).toBe(COALESCE + REORDER_MAX_LAG_MS);
  });

  it('puts an Event found for a held hop on its line, and one for a printed hop on a ↳ line of its own', async () => {
    const { hop, at, printed, text, out } = setup();
    const event = (note: string): TraceEventRef => ({ reason: 'Scheduled', note, time: new Date(T0).toISOString(), reportingController: 'default-scheduler' });
    await at(60);
    const a = hop('a', 10);
    const held = event('Successfully assigned demo/a to kwok-node-1');
    a.events.push(held);
    text.push({ type: 'event', hopId: a.id, event: held });
    await at(300);
    expect(out.filter((l) => l.includes('Successfully assigned demo/a'))).toHaveLength(1);
    const later = event('a later word about a');
    a.events.push(later);
    text.push({ type: 'event', hopId: a.id, event: later });
    text.push({ type: 'note', at: T0 + 300, level: 'info', message: 'something happened' });
    await at(1_000);
    expect(printed()).toEqual(['a', '↳ Scheduled: a later word about a  (ready)', 'info: something happened']);
  });

  it('prints everything held when the trace ends, and what comes after at once', async () => {
    const { hop, at, printed, text } = setup();
    await at(60);
    hop('a', 10);
    hop('b', 50);
    text.push({ type: 'end', outcome: 'converged', at: T0 + 60, elapsedMs: 60, message: 'converged' });
    expect(printed()).toEqual(['a', 'b']);
    hop('c', 20);
    expect(printed()).toEqual(['a', 'b', 'c ↑ +50ms']);
  });
});

describe('trace text with hostile names and messages', () => {
  const object = { kind: 'Pod', namespace: 'demo', name: `web-${HOSTILE}`, uid: 'p1' };
  const evil: TraceEventRef = { reason: `Back${HOSTILE}`, note: HOSTILE, time: undefined, reportingController: undefined };
  const hop: Hop = {
    id: 'ready/p1',
    kind: 'ready',
    object,
    detail: `reason ${HOSTILE}`,
    observedAt: T0 + 10,
    reconciledAt: T0 + 11,
    sinceTriggerMs: 10,
    sincePreviousMs: 10,
    events: [evil],
  };
  const expectSafeLine = (line: string | undefined): void => {
    expect(line).toBeDefined();
    expect(controlsIn(line!)).toEqual([]);
    expect(line!.split('\n')).toHaveLength(1);
    for (const s of SHOWN) expect(line).toContain(s);
  };

  it('every line streamed is one line, its control characters shown', async () => {
    const clock = new FakeClock(T0);
    const out: string[] = [];
    const text = new TimeOrderedTraceText({ clock, coalesceMs: COALESCE, hops: () => [hop], write: (l) => out.push(l) });
    text.push({ type: 'trigger', trigger: { kind: 'annotate', wrote: `annotated ${HOSTILE}`, at: T0, writes: 1 } });
    text.push({ type: 'hop', hop });
    text.push({ type: 'note', at: T0, level: 'warning', message: HOSTILE });
    text.push({ type: 'end', outcome: 'converged', at: T0 + 60, elapsedMs: 60, message: 'converged' });
    text.push({ type: 'event', hopId: hop.id, event: evil });
    await clock.step(1_000);
    expect(out).toHaveLength(4);
    for (const line of out) expectSafeLine(line);
    expectSafeLine(traceEventText({ type: 'hop', hop }));
  });

  it('counts the informers that held and saw nothing instead of listing them', () => {
    const inf = (name: string, objects: number, added = 0): InformerStats =>
      ({
        name,
        description: `${name} in demo`,
        started: true,
        stopped: false,
        synced: true,
        objects,
        queued: 0,
        events: { ADDED: added, MODIFIED: 0, DELETED: 0 },
        lists: 1,
        listRequests: 1,
        relists: 0,
        watches: 1,
        watchRestarts: 0,
        watchStalls: 0,
        bookmarks: 0,
        resyncs: 0,
        errors: 0,
        lastError: undefined,
        backlog: 0,
      }) as InformerStats;
    const snap = {
      target: { kind: 'Widget', namespace: 'demo', name: 'w' },
      trigger: { kind: 'watch', wrote: '', at: T0, writes: 0 },
      hops: [],
      tree: undefined,
      informers: [inf('widgets', 1), inf('pods', 2, 2), inf('limitranges', 0), inf('podtemplates', 0), inf('secrets', 0)],
      queue: undefined,
      reconciles: 0,
      targetWatchEvents: 0,
      outcome: 'converged',
      endMessage: 'Widget/w converged',
      burst: undefined,
    } as unknown as TraceSnapshot;
    const text = traceSummaryText(snap);
    expect(text).toContain('widgets in demo');
    expect(text).toContain('pods in demo');
    expect(text).not.toContain('limitranges in demo');
    expect(text).toContain('… and 3 informers that held no object and saw no event (all of them in -o json)');
  });

  it('the summary, the tree and the informer table are escaped', () => {
    const snap: TraceSnapshot = {
      target: { kind: 'Deployment', namespace: 'demo', name: `web${HOSTILE}` },
      trigger: { kind: 'restart', wrote: `restarted ${HOSTILE}`, at: T0, writes: 1 },
      hops: [hop],
      tree: {
        ref: { ...object, kind: 'Deployment' },
        status: HOSTILE,
        ready: false,
        deleting: false,
        node: HOSTILE,
        children: [{ ref: object, status: 'Running', ready: true, deleting: false, children: [] }],
      },
      informers: [],
      queue: undefined,
      reconciles: 1,
      targetWatchEvents: 1,
      outcome: 'failed',
      endMessage: `ProgressDeadlineExceeded: ${HOSTILE}`,
      burst: undefined,
    };
    for (const out of [traceSummaryText(snap), treeText(snap)]) {
      expect(controlsIn(out)).toEqual([]);
      for (const s of SHOWN) expect(out).toContain(s);
    }
    expect(traceSummaryText(snap).split('\n')[0]).toBe(`Deployment/web${HOSTILE_SHOWN} in demo: failed — ProgressDeadlineExceeded: ${HOSTILE_SHOWN}`);
  });
});
