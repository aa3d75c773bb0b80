import { afterEach, describe, expect, it } from 'vitest';
import { fieldPathIndexFunc, SharedIndexInformer } from '../informer/index.js';
import type { KubeObject } from '../kube/types.js';
import { FakeClock } from '../../tools/testing/fake-clock.js';
import { fakeErrors, FakeListerWatcher } from '../../tools/testing/fake-lister-watcher.js';
import { controlsIn, HOSTILE, HOSTILE_SHOWN, SHOWN } from '../../tools/testing/hostile.js';
import { renderInk, type InkHarness } from '../../tools/testing/ink.js';
import { CacheModel } from '../live/index.js';
import { CacheApp } from './cache-app.js';

const T0 = Date.UTC(2026, 0, 1);

function cm(name: string, app?: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { namespace: 'demo', name, creationTimestamp: new Date(T0).toISOString(), ...(app ? { labels: { app } } : {}) },
  };
}

interface Setup {
  lw: FakeListerWatcher;
  clock: FakeClock;
  model: CacheModel;
  ink: InkHarness;
  stop(): Promise<void>;
}

let live: Setup[] = [];
afterEach(async () => {
  for (const s of live) await s.stop();
  live = [];
});

async function setup(objects: KubeObject[], size = { width: 100, height: 30 }, title = 'configmaps in demo'): Promise<Setup> {
  const clock = new FakeClock(T0);
  const lw = new FakeListerWatcher({ objects });
  const informer = new SharedIndexInformer(lw, { clock, random: () => 0, indexers: { app: fieldPathIndexFunc('metadata.labels.app') } });
  const model = new CacheModel(informer, { indexNames: ['app'] });
  const abort = new AbortController();
  const done = informer.run(abort.signal);
  await clock.step(0);
  const ink = renderInk(<CacheApp model={model} title={title} namespaced width={size.width} height={size.height} maxFps={1000} now={() => T0 + 5000} />);
  const s: Setup = {
    lw,
    clock,
    model,
    ink,
    stop: async () => {
      ink.unmount();
      model.stop();
      abort.abort();
      await clock.step(0);
      await done;
    },
  };
  live.push(s);
  return s;
}

const KEY = { down: '\u001b[B', enter: '\r', esc: '\u001b', tab: '\t' };

/** Typed one at a time, each after the frame it leads to, so no key is lost between renders. */
async function press(s: Setup, key: string): Promise<void> {
  s.ink.stdin.write(key);
  await new Promise((r) => setTimeout(r, 20));
}

describe('CacheApp', () => {
  it('shows the objects with one column per index, the index values with counts, the deltas and the counters, in exactly the given size', async () => {
    const s = await setup([cm('a', 'web'), cm('b', 'web'), cm('c', 'db'), cm('d')]);
    const f = await s.ink.waitFor('Objects · 4');
    const lines = f.split('\n');
    expect(lines.length).toBe(30);
    expect(lines.every((l) => l.length <= 100)).toBe(true);
    expect(lines[0]).toMatch(/^cache configmaps in demo · 4 objects · rv 104 · .*lists 1 \(relists 0\)/);
    expect(f).toMatch(/NAMESPACE\s+NAME\s+RESOURCEVERSION\s+AGE\s+LAST\s+APP/);
    expect(f).toMatch(/demo\s+a\s+101\s+5s\s+Replaced 5s\s+web/);
    expect(f).toMatch(/demo\s+d\s+104\s+5s\s+Replaced 5s\s+<none>/);
    expect(f).toContain('app=db  1');
    expect(f).toContain('app=web  2');
    expect(f).toMatch(/Replaced\s+demo\/a\s+rv 101\s+\(initial list\)/);
    expect(f).toMatch(/── synced rv 104/);
  });

  it('updates in place: a label change moves the index counts and its object row, the delta is listed', async () => {
    const s = await setup([cm('a', 'web'), cm('b', 'web')]);
    await s.ink.waitFor('app=web  2');
    s.lw.modify(cm('b', 'db'));
    await s.clock.step(0);
    const f = await s.ink.waitFor((x) => x.includes('app=db  1') && x.includes('app=web  1'));
    expect(f).toMatch(/Updated\s+demo\/b\s+rv 103/);
    expect(f).toMatch(/demo\s+b\s+103\s+5s\s+Updated 5s\s+db/);
    s.lw.delete('demo/a');
    await s.clock.step(0);
    const g = await s.ink.waitFor('Objects · 1');
    expect(g).not.toContain('app=web');
    expect(g).toMatch(/Deleted\s+demo\/a/);
  });

  it('Enter on an index value narrows the objects to ByIndex(name, value); Esc shows them all again', async () => {
    const s = await setup([cm('a', 'web'), cm('b', 'web'), cm('c', 'db')]);
    await s.ink.waitFor('Objects · 3');
    // Typed faster than the view redraws: each key must act on the state the previous one left.
    s.ink.stdin.write(KEY.tab); // the index pane: app=db first
    s.ink.stdin.write(KEY.down); // app=web
    s.ink.stdin.write(KEY.enter);
    const f = await s.ink.waitFor('Objects · 2 under app=web');
    expect(f).toMatch(/demo\s+a\s/);
    expect(f).not.toMatch(/demo\s+c\s/);
    await press(s, KEY.esc);
    await s.ink.waitFor('Objects · 3');
  });

  it('acts on every key of one read from the terminal: Tab, G and Enter typed together narrow to the last index value', async () => {
    const s = await setup([cm('a', 'web'), cm('b', 'web'), cm('c', 'db')]);
    await s.ink.waitFor('Objects · 3');
    s.ink.stdin.write(`${KEY.tab}G${KEY.enter}`);
    const f = await s.ink.waitFor('Objects · 2 under app=web');
    expect(f).toMatch(/demo\s+b\s/);
  });

  it('/ filters every pane by its words', async () => {
    const s = await setup([cm('alpha', 'web'), cm('beta', 'db')]);
    await s.ink.waitFor('Objects · 2');
    for (const c of '/beta') await press(s, c);
    await press(s, KEY.enter);
    const f = await s.ink.waitFor('Objects · 1');
    expect(f).toMatch(/demo\s+beta/);
    expect(f).not.toMatch(/demo\s+alpha/);
    expect(f).toContain('filter: beta');
  });

  it('marks a relist (after a 410) and its tombstone among the deltas', async () => {
    const s = await setup([cm('a', 'web'), cm('b', 'web')], { width: 120, height: 30 });
    await s.ink.waitFor('Objects · 2');
    s.lw.silently((f) => f.delete('demo/b'));
    s.lw.sendError(fakeErrors.expired());
    await s.clock.step(800);
    const f = await s.ink.waitFor('(tombstone)');
    expect(f).toMatch(/── relist/);
    expect(f).toMatch(/Replaced\s+demo\/a\s+rv 101(?!.*initial)/);
    expect(f).toMatch(/Deleted\s+demo\/b\s+rv 102\s+\(tombstone\)/);
    expect(f).toMatch(/relists 1/);
  });
});

describe('CacheApp with hostile names and label values', () => {
  it('shows them escaped in the header, the object rows, the index values and the deltas, in exactly the given size', async () => {
    const s = await setup([cm(`x${HOSTILE}`, `v${HOSTILE}`), cm('plain', 'web')], { width: 300, height: 30 }, `configmaps in ${HOSTILE}`);
    const f = await s.ink.waitFor('Objects · 2');
    expect(controlsIn(f, { sgr: true })).toEqual([]);
    const lines = f.split('\n');
    expect(lines).toHaveLength(30);
    expect(lines.every((l) => l.length <= 300)).toBe(true);
    expect(lines[0]).toContain(`cache configmaps in ${HOSTILE_SHOWN} · 2 objects`);
    expect(f).toContain(`app=v${HOSTILE_SHOWN}  1`);
    expect(f).toContain(`demo/x${HOSTILE_SHOWN}`);
    // The object row: cells cut to 40 columns, escaped first, so the columns stay aligned.
    const rows = lines.filter((l) => /^\s*demo\s/.test(l));
    expect(rows).toHaveLength(2);
    expect(rows[0]!.indexOf('Replaced')).toBe(rows[1]!.indexOf('Replaced'));
    expect(rows.join('\n')).toContain(SHOWN[0]);
  });
});
