import { Text } from 'ink';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderInk, type InkHarness } from '../../tools/testing/ink.js';
import { useLive } from './live.js';

let harness: InkHarness | undefined;
afterEach(() => {
  harness?.unmount();
  harness = undefined;
});

/** A model whose value changes on set(), with the listeners useLive subscribes. */
class Counter {
  value = 0;
  reads = 0;
  readonly listeners = new Set<() => void>();
  onUpdate(l: () => void): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }
  read(): number {
    this.reads++;
    return this.value;
  }
  set(v: number): void {
    this.value = v;
    for (const l of this.listeners) l();
  }
}

function Shown({ model, tickMs }: { model: Counter; tickMs: number }): ReactNode {
  const v = useLive(
    model,
    (l) => model.onUpdate(l),
    () => model.read(),
    { tickMs },
  );
  return <Text>value {v}</Text>;
}

describe('useLive', () => {
  it('coalesces a burst of changes into a leading and a trailing read, and shows the last value', async () => {
    const model = new Counter();
    harness = renderInk(<Shown model={model} tickMs={0} />);
    await harness.waitFor(() => model.listeners.size === 1);
    const before = model.reads;
    for (let i = 1; i <= 100; i++) model.set(i);
    await harness.waitFor('value 100');
    expect(model.reads - before).toBeLessThanOrEqual(2);
  });

  it('re-reads on its tick without any change, so ages and clocks move', async () => {
    const model = new Counter();
    harness = renderInk(<Shown model={model} tickMs={20} />);
    await harness.waitFor(() => model.reads >= 4);
    expect(harness.frame()).toBe('value 0');
  });

  it('unsubscribes when the screen is left', async () => {
    const model = new Counter();
    harness = renderInk(<Shown model={model} tickMs={0} />);
    await harness.waitFor(() => model.listeners.size === 1);
    harness.unmount();
    harness = undefined;
    expect(model.listeners.size).toBe(0);
  });
});
