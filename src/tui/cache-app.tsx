/**
 * The `cache` TUI container: a live mirror of one informer's cache. It owns the subscription to the
 * model (useLive: at most `maxFps` redraws a second, a 1 s tick for ages and counters), the screen
 * (useScreen), the narrowing to ByIndex(name, value) (Enter on an index value narrows the objects,
 * Esc widens them again) and the terminal size; CacheScreen (cache-screen.tsx) draws the layout of
 * src/view/cache-layout.ts.
 */
import { useRef, useState, type ReactNode } from 'react';
import type { CommandIO } from '../cli/io.js';
import type { CacheModel } from '../live/index.js';
import { CACHE_PANES, cacheLayout, type CachePane, type Narrow } from '../view/cache-layout.js';
import { initialScreen, navOf, resolveNav } from '../view/screen-state.js';
import { CacheScreen } from './cache-screen.js';
import type { ExitReason } from './keymap.js';
import { useLive, useSize } from './live.js';
import { runTui } from './mount.js';
import { useScreen } from './use-screen.js';

export interface CacheAppProps {
  model: CacheModel;
  /** "configmaps in demo". */
  title: string;
  namespaced: boolean;
  /** Start narrowed to ByIndex(name, value) (--by-index). */
  narrow?: Narrow | undefined;
  onExit?: (reason: ExitReason) => void;
  maxFps?: number;
  /** Fixed size (tests); default the terminal's. */
  width?: number;
  height?: number;
  /** Wall clock for ages (tests pass a fixed one). */
  now?: () => number;
}

export function CacheApp({ model, title, namespaced, narrow: initialNarrow, onExit, maxFps = 10, width, height, now = Date.now }: CacheAppProps): ReactNode {
  const size = useSize(width, height);
  const [narrow, setNarrow] = useState<Narrow | undefined>(initialNarrow);
  // Presses of one read see the narrowing the previous one left, as they see its screen state.
  const latestNarrow = useRef(narrow);
  latestNarrow.current = narrow;
  const narrowTo = (next: Narrow | undefined): void => {
    latestNarrow.current = next;
    setNarrow(next);
  };
  // The model is read while rendering: a change only asks for a render.
  useLive(
    model,
    (listener) => model.onUpdate(listener),
    () => ({}),
    { maxFps },
  );

  const input = { model, title, namespaced, narrow, ...size, now: now() };
  const screen = useScreen({
    initial: () => initialScreen<CachePane>('objects', ['deltas']),
    layout: (state) => cacheLayout({ ...input, state }),
    focus: (s, l) => ({ panes: CACHE_PANES, keys: l.keys[s.pane], height: l.listHeights[s.pane], openable: s.pane !== 'indexes' }),
    own: (press, s, l) => {
      const plain = !s.editing && !s.help && s.detail === undefined;
      if (plain && press.action === 'open' && s.pane === 'indexes') {
        const entry = l.indexEntries[resolveNav(navOf(s, 'indexes'), l.keys.indexes, l.listHeights.indexes).index];
        if (!entry) return true;
        narrowTo({ name: entry.name, value: entry.value });
        return { ...s, pane: 'objects', nav: { ...s.nav, objects: undefined } };
      }
      if (plain && press.action === 'back' && !s.filter && latestNarrow.current) {
        narrowTo(undefined);
        return true;
      }
      return false;
    },
    onExit,
  });

  return <CacheScreen {...input} state={screen.state} layout={screen.layout} />;
}

export async function runCacheTui(
  model: CacheModel,
  io: CommandIO,
  options: { title: string; namespaced: boolean; narrow?: Narrow | undefined; signal: AbortSignal; forMs: number },
): Promise<ExitReason | 'done'> {
  const how = await runTui(
    (onExit) => <CacheApp model={model} title={options.title} namespaced={options.namespaced} narrow={options.narrow} onExit={onExit} />,
    io,
    { signal: options.signal, endAfterMs: options.forMs },
  );
  return how === 'ended' ? 'done' : how;
}
