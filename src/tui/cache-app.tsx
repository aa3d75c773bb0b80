/**
 * The `cache` TUI container: a live mirror of one informer's cache. It owns the subscription to the
 * model (useLive: at most `maxFps` redraws a second, a 1 s tick for ages and counters), the screen
 * state, the narrowing to ByIndex(name, value) (Enter on an index value narrows the objects, Esc
 * widens them again), the keys (src/tui/keymap.ts) and the terminal size; CacheScreen
 * (cache-screen.tsx) draws.
 */
import { useRef, useState, type ReactNode } from 'react';
import type { CommandIO } from '../cli/io.js';
import type { CacheModel } from '../live/index.js';
import { initialScreen, navOf, reduceScreen, resolveNav, type Press, type ScreenState } from '../view/screen-state.js';
import { CACHE_PANES, cacheLayout, type CachePane, type Narrow } from '../view/cache-layout.js';
import { CacheScreen } from './cache-screen.js';
import { useKeys, type ExitReason } from './keymap.js';
import { useLive, useSize } from './live.js';
import { mountTui } from './mount.js';

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
  const [screen, setScreen] = useState<ScreenState<CachePane>>(() => initialScreen<CachePane>('objects', ['deltas']));
  const [narrow, setNarrow] = useState<Narrow | undefined>(initialNarrow);
  // The model is read while rendering: a change only asks for a render.
  useLive(
    model,
    (listener) => model.onUpdate(listener),
    () => ({}),
    { maxFps },
  );

  const props = { model, title, namespaced, narrow, state: screen, ...size, now: now() };
  const layout = cacheLayout(props);
  // Keys typed quickly arrive before the next render: each press must see the state the previous
  // one left, so the screen state and the narrowing are kept here too, updated as they are set.
  const latest = useRef({ screen, narrow, layout });
  latest.current.layout = layout;
  const update = (next: { screen?: ScreenState<CachePane>; narrow?: Narrow | undefined }): void => {
    if (next.screen) {
      latest.current.screen = next.screen;
      setScreen(next.screen);
    }
    if ('narrow' in next) {
      latest.current.narrow = next.narrow;
      setNarrow(next.narrow);
    }
  };

  const handle = (press: Press): void => {
    const { layout: l, screen: s } = latest.current;
    const plain = !s.editing && !s.help && s.detail === undefined;
    if (plain && press.action === 'open' && s.pane === 'indexes') {
      const entry = l.indexEntries[resolveNav(navOf(s, 'indexes'), l.keys.indexes, l.listHeights.indexes).index];
      if (entry) update({ narrow: { name: entry.name, value: entry.value }, screen: { ...s, pane: 'objects', nav: { ...s.nav, objects: undefined } } });
      return;
    }
    if (plain && press.action === 'back' && !s.filter && latest.current.narrow) {
      update({ narrow: undefined });
      return;
    }
    update({
      screen: reduceScreen(s, press, {
        panes: CACHE_PANES,
        keys: l.keys[s.pane],
        height: l.listHeights[s.pane],
        textLines: l.text?.lines.length ?? 0,
        textHeight: Math.max(1, l.body - 1),
        openable: s.pane !== 'indexes',
      }),
    });
  };
  useKeys(handle, { editing: () => latest.current.screen.editing, onExit });

  return <CacheScreen {...props} layout={layout} />;
}

export async function runCacheTui(
  model: CacheModel,
  io: CommandIO,
  options: { title: string; namespaced: boolean; narrow?: Narrow | undefined; signal: AbortSignal; forMs: number },
): Promise<ExitReason | 'done'> {
  let reason: ExitReason | 'done' = 'done';
  const app = <CacheApp model={model} title={options.title} namespaced={options.namespaced} narrow={options.narrow} onExit={(r) => (reason = r)} />;
  const how = await mountTui(app, io, { signal: options.signal, endAfterMs: options.forMs });
  return how === 'interrupt' ? 'interrupt' : reason;
}
