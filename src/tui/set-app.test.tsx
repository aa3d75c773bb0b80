import { afterEach, describe, expect, it } from 'vitest';
import { controlsIn, HOSTILE } from '../../tools/testing/hostile.js';
import { renderInk, type InkHarness } from '../../tools/testing/ink.js';
import { setMember } from '../../tools/testing/set-member.js';
import { syntheticRollout } from '../../tools/testing/synthetic-trace.js';
import type { SetEvent, SetMember, TraceSession, TraceSnapshot } from '../trace/index.js';
import { SetApp, type SetSource } from './set-app.js';

const T0 = 1_790_000_000_000;

/** A trace's session as the chain view reads it: its snapshot, and no news. */
function chainOf(name: string): TraceSession {
  const trace = syntheticRollout(2, { name });
  const snap = {
    ...trace,
    figures: undefined,
    informers: [],
    queue: undefined,
    reconciles: 1,
    targetWatchEvents: 1,
    endMessage: undefined,
    burst: undefined,
  } as TraceSnapshot;
  return { snapshot: () => snap, subscribe: () => () => undefined } as unknown as TraceSession;
}

const member = (index: number, name: string, o: Partial<SetMember>): SetMember => setMember(index, name, T0, o);

const source = (members: SetMember[]): SetSource & { emit(e: SetEvent): void } => {
  const listeners = new Set<(e: SetEvent) => void>();
  return {
    members,
    startedAt: T0,
    endedAt: undefined,
    subscribe: (fn) => (listeners.add(fn), () => listeners.delete(fn)),
    emit: (e) => {
      for (const l of listeners) l(e);
    },
  };
};

let ink: InkHarness | undefined;
afterEach(() => {
  ink?.unmount();
  ink = undefined;
});

describe('SetApp', () => {
  const members = [
    member(0, 'config', { apiVersion: 'v1', kind: 'ConfigMap', info: undefined, step: 'config', state: 'no-readiness' }),
    member(1, 'fast', {
      readyAt: T0 + 1_200,
      session: chainOf('fast'),
      verdict: { status: 'Current', rule: 'apps Deployment', layer: 'builtin', detail: '2 ready' },
    }),
    member(2, 'slow', { state: 'applied', session: chainOf('slow') }),
  ];

  it('lists each object with its status, time and rule, in apply order or the slowest first', async () => {
    ink = renderInk(<SetApp source={source(members)} ended={() => false} clockNow={() => T0 + 5_000} width={80} height={12} />);
    let f = ink.frame();
    expect(f).toMatch(/^apply 3 objects · 1 ready · 1 without readiness · 1 waiting · \+5\.00s/m);
    expect(f).toMatch(/STATUS +OBJECT +APPLY +TIME +RULE/);
    const order = (frame: string): string[] => [...frame.matchAll(/(configmap|deployment\.apps)\/(\w+)/g)].map((m) => m[2]!);
    expect(order(f)).toEqual(['config', 'fast', 'slow']);
    expect(f).toMatch(/ready +deployment\.apps\/fast +created +1\.20s +apps Deployment: 2/);
    expect(f).toMatch(/waiting +deployment\.apps\/slow +created +5\.00s/);
    ink.stdin.write('s');
    f = await ink.waitFor('slowest first');
    expect(order(f)).toEqual(['slow', 'fast', 'config']);
    for (const line of f.split('\n')) expect([...line].length).toBeLessThanOrEqual(80);
    expect(f.split('\n').length).toBeLessThanOrEqual(12);
  });

  it("opens an object's chain in the trace's view with Enter, and comes back to the list with q", async () => {
    const exits: string[] = [];
    ink = renderInk(<SetApp source={source(members)} ended={() => true} onExit={(r) => exits.push(r)} clockNow={() => T0 + 5_000} width={80} height={24} />);
    await ink.waitFor('─ Objects ·');
    // Enter on a ConfigMap shows what was applied; Esc goes back.
    ink.stdin.write('\r');
    let f = await ink.waitFor('─ Object ─');
    expect(f).toContain('configmap/config in shop');
    expect(f).toContain('status:  None');
    ink.stdin.write('\u001b');
    await ink.waitFor('─ Objects ·');
    ink.stdin.write('j');
    ink.stdin.write('\r');
    f = await ink.waitFor('─ Timeline');
    expect(f).toContain('Deployment/fast');
    ink.stdin.write('q');
    f = await ink.waitFor('─ Objects ·');
    expect(exits).toEqual([]);
    expect(f).toContain('· done');
  });

  it('escapes what the cluster wrote', () => {
    const hostile = member(0, 'x', { state: 'failed', message: HOSTILE, verdict: { status: 'Failed', rule: 'r', layer: 'generic', detail: HOSTILE } });
    ink = renderInk(<SetApp source={source([hostile])} ended={() => true} clockNow={() => T0} width={100} height={10} />);
    expect(controlsIn(ink.frame())).toEqual([]);
  });
});
