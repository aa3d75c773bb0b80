import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube/index.js';
import { FakeClock } from '../../tools/testing/fake-clock.js';
import type { Deletion, ReconcileView } from './chain-tracker.js';
import { EndDecision, type Currency, type EndDecisionOptions, type EndTracker } from './end-decision.js';
import type { Hop, HopKind, TraceEvent, TraceTrigger } from './types.js';

const T0 = Date.UTC(2026, 0, 1);
const restart: TraceTrigger = { kind: 'restart', wrote: 'restarted', at: T0, resourceVersion: '2', generation: 2, writes: 1 };
const watched: TraceTrigger = { kind: 'watch', wrote: '', at: T0, writes: 0 };

function hop(kind: HopKind, uid = 'dep', detail?: string): Hop {
  return {
    id: `${kind}/${uid}`,
    kind,
    object: { kind: uid === 'dep' ? 'Deployment' : 'Pod', namespace: 'ns', name: uid === 'dep' ? 'web' : `web-${uid}`, uid },
    detail,
    observedAt: T0,
    reconciledAt: T0,
    sinceTriggerMs: 0,
    sincePreviousMs: 0,
    events: [],
  };
}

/** The tracker as the decision reads it, each answer set by the test. */
class StubTracker implements EndTracker {
  convergedHop: Hop | undefined;
  deleted = false;
  spec = false;
  rollout = false;
  list: Hop[] = [];
  converged(): Hop | undefined {
    return this.convergedHop;
  }
  isTargetDeleted(): boolean {
    return this.deleted;
  }
  specChanged(): boolean {
    return this.spec;
  }
  expectsRollout(): boolean {
    return this.rollout;
  }
  hops(): Hop[] {
    return this.list;
  }
}

class StubCurrency implements Currency {
  caughtUp = true;
  lagging: string[] = [];
  closed = false;
  check(): boolean {
    return this.caughtUp;
  }
  behind(): string[] {
    return this.lagging;
  }
  close(): void {
    this.closed = true;
  }
}

interface Harness {
  clock: FakeClock;
  tracker: StubTracker;
  currency: StubCurrency;
  /** How often the decision made its currency. */
  currencies: number;
  events: TraceEvent[];
  state: { trigger: TraceTrigger | undefined; terminating: number; pending: boolean };
  decision: EndDecision;
}

function harness(options: Partial<EndDecisionOptions> = {}): Harness {
  const clock = new FakeClock(T0);
  const tracker = new StubTracker();
  const currency = new StubCurrency();
  const events: TraceEvent[] = [];
  const state = { trigger: restart as TraceTrigger | undefined, terminating: 0, pending: false };
  const h: Harness = { clock, tracker, currency, currencies: 0, events, state, decision: undefined as unknown as EndDecision };
  h.decision = new EndDecision({
    clock,
    tracker,
    targetLabel: 'Deployment/web',
    settleMs: 3_000,
    stopWhenConverged: false,
    trigger: () => state.trigger,
    targetUid: () => 'dep',
    terminating: () => state.terminating,
    currency: () => (h.currencies++, currency),
    reconcilePending: () => state.pending,
    emit: (e) => events.push(e),
    ...options,
  });
  return h;
}

function view(o: { target?: KubeObject | null; triggerSeenAt?: number; deletions?: Map<string, Deletion> } = {}): ReconcileView {
  const target =
    o.target === null
      ? undefined
      : (o.target ?? { kind: 'Deployment', metadata: { name: 'web', namespace: 'ns', uid: 'dep', generation: 2, resourceVersion: '2' } });
  return {
    target: target ? { ref: { kind: 'Deployment', namespace: 'ns', name: 'web', uid: 'dep' }, obj: target, observedAt: T0 } : undefined,
    descendants: [],
    deletions: o.deletions ?? new Map(),
    triggerSeenAt: 'triggerSeenAt' in o ? o.triggerSeenAt : T0,
  };
}

const ends = (h: Harness): TraceEvent[] => h.events.filter((e) => e.type === 'end');
const notes = (h: Harness): string[] => h.events.flatMap((e) => (e.type === 'note' ? [e.message] : []));

describe('EndDecision', () => {
  it('decides nothing before the trigger', () => {
    const h = harness();
    h.state.trigger = undefined;
    h.tracker.convergedHop = hop('converged', 'dep', '2/2 ready');
    h.tracker.deleted = true;
    h.decision.check(view());
    expect(h.decision.outcome).toBeUndefined();
    expect(h.events).toEqual([]);
    expect(h.clock.pendingTimers()).toBe(0);
  });

  it('ends deleted when the tracker saw the target deleted, or the view holds its deletion', async () => {
    const a = harness();
    a.tracker.deleted = true;
    a.decision.check(view());
    expect(a.decision.outcome).toBe('deleted');
    expect(a.decision.message).toBe('Deployment/web was deleted');

    const b = harness();
    b.decision.check(view({ target: null, deletions: new Map([['dep', { at: T0 + 5, tombstone: false }]]) }));
    expect(b.decision.outcome).toBe('deleted');
    await b.decision.ended;
  });

  it('ends converged once the chain caught up and no reconcile of the target waits, making its currency once', () => {
    const h = harness();
    h.tracker.convergedHop = hop('converged', 'dep', '2/2 ready');
    h.currency.caughtUp = false;
    h.decision.check(view());
    expect(h.decision.outcome).toBeUndefined();
    h.currency.caughtUp = true;
    h.state.pending = true;
    h.decision.check(view());
    expect(h.decision.outcome).toBeUndefined();
    h.state.pending = false;
    h.clock.set(T0 + 1_500);
    h.decision.check(view());
    expect(h.decision.outcome).toBe('converged');
    expect(h.decision.message).toBe('Deployment/web converged: 2/2 ready');
    expect(h.currencies).toBe(1);
    expect(h.currency.closed).toBe(true);
    expect(ends(h)).toEqual([{ type: 'end', outcome: 'converged', at: T0 + 1_500, elapsedMs: 1_500, message: 'Deployment/web converged: 2/2 ready' }]);
  });

  it('follows terminating objects to their deletion after the status converged, saying so once; not with stopWhenConverged', () => {
    const h = harness();
    h.tracker.convergedHop = hop('converged', 'dep', '2/2 ready');
    h.state.terminating = 2;
    h.decision.check(view());
    h.decision.check(view());
    expect(h.decision.outcome).toBeUndefined();
    expect(notes(h)).toEqual(['Deployment/web converged; following 2 terminating object(s) to their deletion']);
    expect(h.currencies).toBe(0);
    h.state.terminating = 0;
    h.decision.check(view());
    expect(h.decision.outcome).toBe('converged');

    const s = harness({ stopWhenConverged: true });
    s.tracker.convergedHop = hop('converged', 'dep', '2/2 ready');
    s.state.terminating = 2;
    s.decision.check(view());
    expect(s.decision.message).toBe('Deployment/web converged: 2/2 ready (2 object(s) still terminating)');
  });

  it('ends failed at once, terminating objects or not', () => {
    const h = harness();
    h.tracker.convergedHop = hop('failed', 'dep', 'ProgressDeadlineExceeded');
    h.state.terminating = 1;
    h.decision.check(view());
    expect(h.decision.outcome).toBe('failed');
    expect(h.decision.message).toBe('Deployment/web failed: ProgressDeadlineExceeded (1 object(s) still terminating)');
  });

  it('says no rollout follows once the settle window passed after the controller saw a change that brings none', async () => {
    const h = harness();
    h.tracker.spec = true;
    h.tracker.list = [hop('target-modified'), hop('controller-observed')];
    h.decision.check(view());
    h.decision.check(view());
    expect(h.clock.pendingTimers()).toBe(1);
    await h.clock.step(2_999);
    expect(h.decision.outcome).toBeUndefined();
    await h.clock.step(1);
    expect(h.decision.outcome).toBe('no-rollout');
    expect(h.decision.message).toBe(
      'metadata-only change: generation 2 observed by the controller, spec unchanged; no ReplicaSet or Pod changed within 3s: no rollout follows',
    );
  });

  it('waits to settle until our write was seen and, the generation moved, until the controller observed it', async () => {
    const h = harness();
    h.decision.check(view({ triggerSeenAt: undefined }));
    h.tracker.spec = true;
    h.decision.check(view());
    expect(h.clock.pendingTimers()).toBe(0);
    h.tracker.list = [hop('controller-observed'), hop('ready', 'p1')];
    h.decision.check(view());
    expect(h.clock.pendingTimers()).toBe(1);
    await h.clock.step(3_000);
    expect(h.decision.message).toContain('; 1 child hop(s) within 3s');

    const w = harness();
    w.state.trigger = watched;
    w.decision.check(view({ triggerSeenAt: undefined }));
    expect(w.clock.pendingTimers()).toBe(1);
  });

  it('does not settle while a rollout is expected or the target is terminating; a change of spec within the window cancels it', async () => {
    const h = harness();
    h.tracker.rollout = true;
    h.decision.check(view());
    h.tracker.rollout = false;
    h.decision.check(view({ target: { kind: 'Deployment', metadata: { name: 'web', uid: 'dep', deletionTimestamp: '2026-01-01T00:00:01Z' } } }));
    expect(h.clock.pendingTimers()).toBe(0);
    h.decision.check(view());
    h.tracker.rollout = true;
    await h.clock.step(3_000);
    expect(h.decision.outcome).toBeUndefined();
    // The window is armed again once no rollout is expected after all.
    h.tracker.rollout = false;
    h.decision.check(view());
    await h.clock.step(3_000);
    expect(h.decision.outcome).toBe('no-rollout');
  });

  it('stopped from outside, ends as asked, unless the target converged: then converged, naming the informers behind', () => {
    const a = harness();
    a.decision.stop('timeout', 'no convergence within 10s');
    expect(a.decision.outcome).toBe('timeout');
    expect(a.decision.message).toBe('no convergence within 10s');

    const b = harness();
    b.tracker.convergedHop = hop('converged', 'dep', '2/2 ready');
    b.state.terminating = 1;
    b.currency.caughtUp = false;
    b.currency.lagging = ['pods'];
    b.decision.check(view());
    b.state.terminating = 0;
    b.decision.check(view());
    expect(b.decision.outcome).toBeUndefined();
    b.decision.stop('interrupted', 'interrupted');
    expect(b.decision.outcome).toBe('converged');
    expect(b.decision.message).toBe('Deployment/web converged: 2/2 ready; pods had not caught up with the server: hops not yet received are missing');

    const c = harness();
    c.tracker.convergedHop = hop('failed', 'dep', 'ProgressDeadlineExceeded');
    c.decision.stop('interrupted', 'interrupted');
    expect(c.decision.outcome).toBe('interrupted');
  });

  it('ends once: a later end, stop or settle changes nothing, and the settle timer is stopped', async () => {
    const h = harness();
    h.decision.check(view());
    expect(h.clock.pendingTimers()).toBe(1);
    h.decision.applyUnchanged();
    expect(h.decision.message).toBe('the manifest matches Deployment/web: the apply changed nothing');
    expect(h.clock.pendingTimers()).toBe(0);
    h.decision.stop('timeout', 'late');
    h.tracker.deleted = true;
    h.decision.check(view());
    await h.clock.step(5_000);
    expect(ends(h)).toHaveLength(1);
    expect(h.decision.outcome).toBe('no-rollout');
    await h.decision.ended;
  });

  it('measures the end from the trigger, or says 0 when there was none', () => {
    const h = harness();
    h.state.trigger = undefined;
    h.clock.set(T0 + 700);
    h.decision.stop('interrupted', 'interrupted');
    expect(ends(h)).toEqual([{ type: 'end', outcome: 'interrupted', at: T0 + 700, elapsedMs: 0, message: 'interrupted' }]);
  });
});
