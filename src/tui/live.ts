/**
 * The live redraw of every TUI: a container reads its model through useLive, which subscribes to
 * the model's change notifications, re-reads it at most `maxFps` times a second however fast it
 * changes (leading and trailing, see throttle.ts), and once every `tickMs` without changes, so
 * ages and clocks move. useSize is the frame's size: the terminal's (re-read on SIGWINCH), or a
 * fixed one the tests pass.
 */
import { useWindowSize } from 'ink';
import { useEffect, useRef, useState } from 'react';
import { Throttle } from './throttle.js';

export interface LiveOptions {
  /** Redraw cap. Default 10 per second. */
  maxFps?: number;
  /** How often the model is re-read without a change (ages, clocks); 0 = never. Default 1 s. */
  tickMs?: number;
  /** Re-read once at (re)subscription, not only at the first render. Default false. */
  readOnSubscribe?: boolean;
}

/**
 * What `read` returns, kept fresh: `subscribe(listener)` registers for changes and returns the
 * unsubscribe. The subscription is made again only when `source` (the model, or anything that
 * decides what is read: a filter's key) changes; `read` and `subscribe` may be new closures at
 * every render, the latest is used.
 */
export function useLive<T>(source: unknown, subscribe: (listener: () => void) => () => void, read: () => T, options: LiveOptions = {}): T {
  const { maxFps = 10, tickMs = 1_000, readOnSubscribe = false } = options;
  const [value, setValue] = useState<T>(read);
  const fns = useRef({ subscribe, read });
  fns.current = { subscribe, read };
  // biome-ignore lint/correctness/useExhaustiveDependencies: `source` decides when to subscribe again; the functions are read through the ref
  useEffect(() => {
    const throttle = new Throttle(() => setValue(fns.current.read()), Math.max(1, Math.round(1000 / maxFps)));
    if (readOnSubscribe) throttle.request();
    const unsubscribe = fns.current.subscribe(() => throttle.request());
    const tick = tickMs > 0 ? setInterval(() => throttle.request(), tickMs) : undefined;
    return () => {
      unsubscribe();
      clearInterval(tick);
      throttle.stop();
    };
  }, [source, maxFps, tickMs, readOnSubscribe]);
  return value;
}

/** The frame's columns and rows: the given ones (tests), else the terminal's. */
export function useSize(width?: number, height?: number): { width: number; height: number } {
  const size = useWindowSize();
  return { width: width ?? size.columns ?? 100, height: height ?? size.rows ?? 30 };
}
