import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube/types.js';
import { FakeClock, flushMicrotasks } from '../../tools/testing/fake-clock.js';
import { DeltaFIFO, ErrFIFOClosed, type Delta, type Deltas, type DeltaFIFOOptions } from './delta-fifo.js';
import { DeletedFinalStateUnknown, type KeyListerGetter } from './store.js';

function mk(name: string, rv: number, extra: Record<string, unknown> = {}): KubeObject {
  return { metadata: { name, resourceVersion: String(rv) }, ...extra };
}

function known(...objs: KubeObject[]): KeyListerGetter {
  const m = new Map(objs.map((o) => [o.metadata.name as string, o]));
  return { listKeys: () => [...m.keys()], getByKey: (k) => m.get(k) };
}

function show(d: Delta): string {
  const o = d.object;
  if (o instanceof DeletedFinalStateUnknown) {
    return `${d.type} tombstone(${o.key}, ${o.obj ? `${o.obj.metadata.name}@${o.obj.metadata.resourceVersion}` : 'nil'})`;
  }
  return `${d.type} ${o.metadata.name}@${o.metadata.resourceVersion}`;
}

async function popAll(f: DeltaFIFO): Promise<string[][]> {
  const out: string[][] = [];
  while (f.length > 0) {
    const deltas = await f.pop(() => {});
    out.push(deltas.map(show));
  }
  return out;
}

function fifo(options: DeltaFIFOOptions = {}): DeltaFIFO {
  return new DeltaFIFO({ clock: new FakeClock(), ...options });
}

describe('DeltaFIFO', () => {
  it('delete then a Replace containing the object again gives [Deleted(old), Sync(new)]', async () => {
    const f = fifo({ knownObjects: known(mk('foo', 5)) });
    f.delete(mk('foo', 6));
    f.replace([mk('foo', 7)], '7');
    expect(await popAll(f)).toEqual([['Deleted foo@6', 'Sync foo@7']]);
  });

  it('add then Replace([]) gives [Added, Deleted(tombstone with the added object)]', async () => {
    for (const knownObjects of [known(), undefined]) {
      const f = fifo(knownObjects ? { knownObjects } : {});
      f.add(mk('foo', 2));
      f.replace([], '0');
      expect(await popAll(f)).toEqual([['Added foo@2', 'Deleted tombstone(foo, foo@2)']]);
    }
  });

  it('add, delete, Replace([]) gives [Added, Deleted] with no tombstone', async () => {
    for (const knownObjects of [known(), undefined]) {
      const f = fifo(knownObjects ? { knownObjects } : {});
      f.add(mk('foo', 2));
      f.delete(mk('foo', 2));
      f.replace([], '0');
      expect(await popAll(f)).toEqual([['Added foo@2', 'Deleted foo@2']]);
    }
  });

  it('two empty Replaces still give one delete', async () => {
    const f = fifo({ knownObjects: known() });
    f.add(mk('foo', 2));
    f.replace([], '0');
    f.replace([], '1');
    expect(await popAll(f)).toEqual([['Added foo@2', 'Deleted tombstone(foo, foo@2)']]);
  });

  it('a Replaced object then an empty Replace gives a single Delete', async () => {
    const f = fifo({ knownObjects: known(), emitDeltaTypeReplaced: true });
    f.add(mk('foo', 2));
    f.replace([mk('foo', 2)], '0');
    f.replace([], '0');
    expect(await popAll(f)).toEqual([['Added foo@2', 'Replaced foo@2', 'Deleted tombstone(foo, foo@2)']]);
  });

  it('add, delete, add again, Replace([]) tombstones the newest queued object', async () => {
    const f = fifo({ knownObjects: known() });
    f.add(mk('foo', 2));
    f.delete(mk('foo', 2));
    f.add(mk('foo', 3));
    f.replace([], '0');
    expect(await popAll(f)).toEqual([['Added foo@2', 'Deleted foo@2', 'Added foo@3', 'Deleted tombstone(foo, foo@3)']]);
  });

  it('a tombstone carries the newest queued object, otherwise the known object', async () => {
    // pre-existing Delete; bar only known
    let f = fifo({ knownObjects: known(mk('foo', 5), mk('bar', 6), mk('baz', 7)) });
    f.delete(mk('baz', 10));
    f.replace([mk('foo', 5)], '0');
    expect(await popAll(f)).toEqual([['Deleted baz@10'], ['Sync foo@5'], ['Deleted tombstone(bar, bar@6)']]);

    // pre-existing Add
    f = fifo({ knownObjects: known(mk('foo', 5), mk('bar', 6), mk('baz', 7)) });
    f.add(mk('baz', 10));
    f.replace([mk('foo', 5)], '0');
    expect(await popAll(f)).toEqual([['Added baz@10', 'Deleted tombstone(baz, baz@10)'], ['Sync foo@5'], ['Deleted tombstone(bar, bar@6)']]);

    // deleted and re-created in the queue, then deleted by a Replace
    f = fifo({ knownObjects: known(mk('foo', 5), mk('bar', 6), mk('baz', 7)) });
    f.delete(mk('bar', 6));
    f.add(mk('bar', 100));
    f.replace([mk('foo', 5)], '0');
    expect(await popAll(f)).toEqual([['Deleted bar@6', 'Added bar@100', 'Deleted tombstone(bar, bar@100)'], ['Sync foo@5'], ['Deleted tombstone(baz, baz@7)']]);
  });

  it('a tombstone of a queued tombstone is unwrapped to the object', async () => {
    const f = fifo({ knownObjects: known(mk('foo', 5), mk('bar', 6), mk('baz', 7)) });
    f.replace([mk('bar', 100), mk('foo', 5)], '0');
    f.replace([mk('foo', 5)], '0');
    expect(await popAll(f)).toEqual([['Sync bar@100', 'Deleted tombstone(bar, bar@100)'], ['Sync foo@5', 'Sync foo@5'], ['Deleted tombstone(baz, baz@7)']]);
  });

  it('two identical Replaces give [Sync, Sync] (nothing but deletions is merged)', async () => {
    const f = fifo({ knownObjects: known() });
    f.replace([mk('foo', 5)], '0');
    f.replace([mk('foo', 5)], '0');
    expect(await popAll(f)).toEqual([['Sync foo@5', 'Sync foo@5']]);
  });

  it('update then Resync gives only [Updated]', async () => {
    const f = fifo({ knownObjects: known(mk('foo', 5)) });
    f.update(mk('foo', 6));
    f.resync();
    expect(await popAll(f)).toEqual([['Updated foo@6']]);
  });

  it('Resync queues Sync(known object) for keys with nothing queued, and nothing without knownObjects', async () => {
    const f = fifo({ knownObjects: known(mk('foo', 5), mk('bar', 6)) });
    f.update(mk('foo', 7));
    f.resync();
    expect(await popAll(f)).toEqual([['Updated foo@7'], ['Sync bar@6']]);
    const g = fifo();
    g.resync();
    expect(g.length).toBe(0);
  });

  it('re-adding a queued key does not reorder it', async () => {
    const f = fifo();
    f.add(mk('foo', 10));
    f.add(mk('bar', 15));
    f.add(mk('qux', 17));
    f.delete(mk('qux', 18));
    f.update(mk('foo', 19));
    // baz is unknown: this delete queues nothing
    f.delete(mk('baz', 20));
    expect(f.listKeys()).toEqual(['foo', 'bar', 'qux']);
    expect(await popAll(f)).toEqual([['Added foo@10', 'Updated foo@19'], ['Added bar@15'], ['Added qux@17', 'Deleted qux@18']]);
  });

  it('delete of an unknown key is ignored, of a known one queued', async () => {
    const f = fifo({ knownObjects: known(mk('foo', 1)) });
    f.delete(mk('nope', 2));
    f.delete(mk('foo', 3));
    expect(await popAll(f)).toEqual([['Deleted foo@3']]);
  });

  it('two deletions collapse to the older one unless it is a tombstone', async () => {
    const f = fifo({ knownObjects: known(mk('foo', 1), mk('bar', 1)) });
    f.delete(mk('foo', 2));
    f.delete(mk('foo', 3));
    f.delete(new DeletedFinalStateUnknown('bar', mk('bar', 1)));
    f.delete(mk('bar', 4));
    expect(await popAll(f)).toEqual([['Deleted foo@2'], ['Deleted bar@4']]);
  });

  it('the Replaced type follows the option', async () => {
    const on = fifo({ knownObjects: known(mk('foo', 5)), emitDeltaTypeReplaced: true });
    on.replace([mk('foo', 5)], '0');
    expect(await popAll(on)).toEqual([['Replaced foo@5']]);
    const off = fifo({ knownObjects: known(mk('foo', 5)) });
    off.replace([mk('foo', 5)], '0');
    expect(await popAll(off)).toEqual([['Sync foo@5']]);
  });

  it('the transformer runs once per object and never on tombstones', async () => {
    const seen: unknown[] = [];
    const f = fifo({
      transformer: (obj) => {
        seen.push(obj);
        if (obj instanceof DeletedFinalStateUnknown) throw new Error('transformed a tombstone');
        const count = ((obj as { xfrm?: number }).xfrm ?? 0) + 1;
        (obj as { xfrm?: number }).xfrm = count;
        return obj;
      },
    });
    f.add(mk('foo', 10));
    f.add(mk('bar', 11));
    f.update(mk('foo', 12));
    f.delete(mk('foo', 15));
    f.replace([], '');
    f.add(mk('bar', 16));
    f.replace([], '');
    let objects = 0;
    while (f.length > 0) {
      const deltas = await f.pop(() => {});
      for (const d of deltas) {
        const o = d.object instanceof DeletedFinalStateUnknown ? d.object.obj : d.object;
        if (!o) continue;
        objects++;
        expect((o as { xfrm?: number }).xfrm).toBe(1);
      }
    }
    expect(objects).toBeGreaterThan(5);
    expect(seen).toHaveLength(5); // foo@10, bar@11, foo@12, foo@15, bar@16
  });

  it('Replace items are transformed even when emitted as Sync; Resync items are not', async () => {
    let calls = 0;
    const k = known(mk('foo', 5));
    const f = fifo({ knownObjects: k, transformer: (o) => (calls++, o) });
    f.replace([mk('foo', 5)], '0');
    expect(calls).toBe(1);
    await popAll(f);
    f.resync();
    expect(calls).toBe(1);
    expect(await popAll(f)).toEqual([['Sync foo@5']]);
  });

  describe('HasSynced', () => {
    const cases: { name: string; actions: ((f: DeltaFIFO) => unknown)[]; synced: boolean }[] = [
      { name: 'nothing', actions: [], synced: false },
      { name: 'an Add', actions: [(f) => f.add(mk('a', 1))], synced: true },
      { name: 'an empty Replace', actions: [(f) => f.replace([], '0')], synced: true },
      { name: 'a Replace of two', actions: [(f) => f.replace([mk('a', 1), mk('b', 2)], '0')], synced: false },
      { name: 'a Replace of two, one Pop', actions: [(f) => f.replace([mk('a', 1), mk('b', 2)], '0'), (f) => f.pop(() => {})], synced: false },
      {
        name: 'a Replace of two, two Pops',
        actions: [(f) => f.replace([mk('a', 1), mk('b', 2)], '0'), (f) => f.pop(() => {}), (f) => f.pop(() => {})],
        synced: true,
      },
      {
        name: 'an Add, a Replace with a duplicate key, one Pop',
        actions: [(f) => f.add(mk('a', 1)), (f) => f.replace([mk('a', 2), mk('a', 3)], '0'), (f) => f.pop(() => {})],
        synced: true,
      },
    ];
    for (const c of cases) {
      it(`after ${c.name}: ${c.synced}`, async () => {
        const f = fifo();
        for (const a of c.actions) await a(f);
        expect(f.hasSynced()).toBe(c.synced);
      });
    }

    it('counts deletions of the first Replace and reports isInInitialList until the last initial item is processed', async () => {
      const f = fifo({ knownObjects: known(mk('gone', 1)) });
      f.replace([mk('a', 1), mk('b', 2)], '0');
      const flags: boolean[] = [];
      const syncedDuring: boolean[] = [];
      for (let i = 0; i < 3; i++) {
        await f.pop((_d, initial) => {
          flags.push(initial);
          syncedDuring.push(f.hasSynced());
        });
      }
      expect(flags).toEqual([true, true, true]);
      // Synced flips after the last process call returns, not when it is dequeued.
      expect(syncedDuring).toEqual([false, false, false]);
      expect(f.hasSynced()).toBe(true);
      f.add(mk('c', 3));
      await f.pop((_d, initial) => void flags.push(initial));
      expect(flags[3]).toBe(false);
    });

    it('an async process keeps HasSynced false until it settles', async () => {
      const f = fifo();
      f.replace([mk('a', 1)], '0');
      let release!: () => void;
      const popped = f.pop(() => new Promise<void>((r) => (release = r)));
      await flushMicrotasks();
      expect(f.hasSynced()).toBe(false);
      release();
      await popped;
      expect(f.hasSynced()).toBe(true);
    });
  });

  it('Pop blocks while empty and wakes on Add', async () => {
    const f = fifo();
    let got: Deltas | undefined;
    const p = f.pop(() => {}).then((d) => (got = d));
    await flushMicrotasks();
    expect(got).toBeUndefined();
    f.add(mk('a', 1));
    await p;
    expect(got?.map(show)).toEqual(['Added a@1']);
  });

  it('close unblocks a waiting Pop with ErrFIFOClosed, after what is left has been popped', async () => {
    const f = fifo();
    const waiting = f.pop(() => {});
    await flushMicrotasks();
    f.close();
    await expect(waiting).rejects.toBe(ErrFIFOClosed);

    const g = fifo();
    g.add(mk('a', 1));
    g.close();
    expect((await g.pop(() => {})).map(show)).toEqual(['Added a@1']);
    await expect(g.pop(() => {})).rejects.toBe(ErrFIFOClosed);
    expect(g.isClosed()).toBe(true);
  });

  it('a process error is returned by Pop and the item is consumed', async () => {
    const f = fifo();
    f.add(mk('a', 1));
    await expect(
      f.pop(() => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(f.length).toBe(0);
  });

  it('concurrent Pops are served one at a time, in queue order', async () => {
    const f = fifo();
    const order: string[] = [];
    const a = f.pop(async (d) => {
      order.push(`start ${show(d[0] as Delta)}`);
      await flushMicrotasks();
      order.push('end a');
    });
    const b = f.pop((d) => void order.push(`start ${show(d[0] as Delta)}`));
    f.add(mk('a', 1));
    f.add(mk('b', 2));
    await Promise.all([a, b]);
    expect(order).toEqual(['start Added a@1', 'end a', 'start Added b@2']);
  });

  it('every delta carries receivedAt from the clock (or the reflector) and the raw watch event type', async () => {
    const clock = new FakeClock(1_000);
    const f = new DeltaFIFO({ clock, knownObjects: known(mk('k', 1)) });
    f.add(mk('a', 1), { eventType: 'ADDED' });
    await clock.step(250);
    f.update(mk('a', 2), { eventType: 'MODIFIED', receivedAt: 1_100 });
    f.replace([mk('b', 3)], '3');
    const a = await f.pop(() => {});
    expect(a.map((d) => [d.type, d.receivedAt, d.eventType])).toEqual([
      ['Added', 1_000, 'ADDED'],
      ['Updated', 1_100, 'MODIFIED'],
      ['Deleted', 1_250, undefined], // not in the Replace: tombstoned
    ]);
    const b = await f.pop(() => {});
    expect(b[0]).toMatchObject({ type: 'Sync', receivedAt: 1_250 });
    expect(b[0]?.eventType).toBeUndefined();
    const k = await f.pop(() => {});
    expect(k[0]).toMatchObject({ type: 'Deleted', receivedAt: 1_250 });
  });

  it('keyOf uses a tombstone key and the newest delta of Deltas; get/getByKey return copies', () => {
    const f = fifo();
    expect(f.keyOf(new DeletedFinalStateUnknown('ns/x', undefined))).toBe('ns/x');
    expect(f.keyOf([{ type: 'Added', object: mk('n', 1), receivedAt: 0 }])).toBe('n');
    expect(() => f.keyOf([])).toThrow(/0 length Deltas/);
    f.add(mk('a', 1));
    const copy = f.getByKey('a');
    copy?.push({ type: 'Sync', object: mk('a', 1), receivedAt: 0 });
    expect(f.get(mk('a', 9))).toHaveLength(1);
    expect(f.list().map((o) => (o as KubeObject).metadata.name)).toEqual(['a']);
  });

  it('handles 50k keys with a ring queue and keeps order', async () => {
    const f = fifo();
    for (let i = 0; i < 50_000; i++) f.add(mk(`o${i}`, i));
    let n = 0;
    let last = -1;
    while (f.length > 0) {
      await f.pop((d) => {
        const rv = Number((d[0]!.object as KubeObject).metadata.resourceVersion);
        expect(rv).toBe(last + 1);
        last = rv;
        n++;
      });
    }
    expect(n).toBe(50_000);
  });
});
