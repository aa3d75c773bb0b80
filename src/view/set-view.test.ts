import { describe, expect, it } from 'vitest';
import { setMember } from '../../tools/testing/set-member.js';
import type { Hop, SetMember, TraceSnapshot } from '../trace/index.js';
import { setObjectView, setSummaryLines, summariseSet } from './set-view.js';

const member = (name: string, o: Partial<SetMember>): SetMember => setMember(0, name, 1_000, o);

const hop = (kind: string, at: number, previousId?: string): Hop =>
  ({
    id: `${kind}/u`,
    kind,
    object: { kind: 'Deployment', name: 'web', uid: 'u' },
    observedAt: at,
    reconciledAt: at,
    sinceTriggerMs: at - 1_000,
    sincePreviousMs: 0,
    previousId,
    events: [],
  }) as unknown as Hop;

describe('a set of objects, summarised', () => {
  it('is ready when every object is ready or has no readiness, with the time from the first write to the last ready', () => {
    const web = member('web', { readyAt: 5_000 });
    const config = member('config', { apiVersion: 'v1', kind: 'ConfigMap', info: undefined, state: 'no-readiness', appliedAt: 900, step: 'config' });
    const api = member('api', { readyAt: 2_500, appliedAt: 1_100 });
    const snap = { hops: [hop('created', 1_050), hop('converged', 5_000, 'created/u')], outcome: 'converged' } as unknown as TraceSnapshot;
    const s = summariseSet([config, web, api], new Map([[web, snap]]), 900, false);
    expect(s).toMatchObject({ objects: 3, ready: 2, withoutReadiness: 1, outcome: 'ready', allReadyMs: 4_100, notReadyObjects: [] });
    expect(s.slowest).toMatchObject({ object: 'deployment.apps/web', readyMs: 4_000 });
    expect(s.slowest!.criticalPath.at(-1)).toMatch(/^Deployment\/web converged/);
    expect(setSummaryLines(s)[0]).toBe('3 objects: 2 ready, 1 without readiness; all ready in 4.10s');
  });

  it('fails when one object failed or was refused, and names each object not ready', () => {
    const refused = member('bad', { state: 'refused', applied: undefined, message: 'Deployment.apps "bad" is invalid' });
    const slow = member('slow', { state: 'not-ready', message: 'no convergence within 2m' });
    const s = summariseSet([refused, slow, member('pending', { state: 'pending', applied: undefined })], new Map(), 1_000, false);
    expect(s.outcome).toBe('failed');
    expect(s.allReadyMs).toBeUndefined();
    expect(s.notReadyObjects).toEqual([
      { object: 'deployment.apps/bad', status: 'Refused', message: 'Deployment.apps "bad" is invalid' },
      { object: 'deployment.apps/slow', status: 'InProgress', message: 'no convergence within 2m' },
      { object: 'deployment.apps/pending', status: 'Pending' },
    ]);
    expect(setObjectView(refused, undefined, undefined).apply).toBe('refused');
    expect(setObjectView(member('p', { state: 'pending', applied: undefined }), undefined, undefined).apply).toBe('not applied');
  });

  it('times out when the only trouble is an object not ready in time', () => {
    expect(summariseSet([member('a', {}), member('b', { state: 'not-ready' })], new Map(), 1_000, false).outcome).toBe('timeout');
    expect(summariseSet([member('a', {}), member('b', { state: 'stopped' })], new Map(), 1_000, true).outcome).toBe('interrupted');
    // A watch whose selector found nothing and saw nothing created: nothing became ready.
    const empty = summariseSet([], new Map(), undefined, false);
    expect(empty.outcome).toBe('timeout');
    expect(setSummaryLines(empty)).toEqual(['0 objects: none was found, and none was created before the timeout']);
  });
});
