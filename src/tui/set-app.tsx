/**
 * The TUI of a set of objects applied and traced at once: SetApp subscribes to the set (useLive),
 * owns the screen (useScreen), the order and the keys; SetScreen (set-screen.tsx) draws the layout
 * of src/view/set-layout.ts. Enter on an object with a chain (a workload, a custom resource) opens
 * it in the trace's own view (TraceApp: timeline, tree, waterfall, diagnosis), and q there comes
 * back to the list; Enter on any other object shows what was applied and what its status says.
 *
 * runSetTui mounts it; it resolves when q or Ctrl+C is pressed or the signal aborts. When the set
 * ends the screen stays until q — or, with `exitOnEnd`, closes a moment later.
 */
import { useState, type ReactNode } from 'react';
import type { CommandIO } from '../cli/io.js';
import type { SetEvent, SetMember, SetSession } from '../trace/index.js';
import { initialScreen, navOf, resolveNav, type ScreenState } from '../view/screen-state.js';
import { setLayout, type SetLayout, type SetPaneKey } from '../view/set-layout.js';
import type { SetOrder } from '../view/set-view.js';
import type { ExitReason } from './keymap.js';
import { useLive, useSize } from './live.js';
import { runTui } from './mount.js';
import { SetScreen } from './set-screen.js';
import { TraceApp, type DiagnosisFeed } from './trace-app.js';
import { useScreen } from './use-screen.js';

/** What the TUI reads of a set. */
export interface SetSource {
  readonly members: readonly SetMember[];
  readonly startedAt: number | undefined;
  readonly endedAt: number | undefined;
  /** Watching for someone else's change (--watch -f) rather than applying. */
  readonly watching?: boolean;
  subscribe(fn: (e: SetEvent) => void): () => void;
}

export interface SetAppProps {
  source: SetSource;
  /** Whether the set has ended. */
  ended: () => boolean;
  /** Diagnoses of an object's chain, on `d` in its view. */
  diagnosesOf?: ((m: SetMember) => DiagnosisFeed) | undefined;
  onExit?: (reason: ExitReason) => void;
  clockNow?: () => number;
  /** Fixed size (tests); default the terminal's. */
  width?: number;
  height?: number;
}

export function SetApp({ source, ended, diagnosesOf, onExit, clockNow = Date.now, width, height }: SetAppProps): ReactNode {
  const size = useSize(width, height);
  const [order, setOrder] = useState<SetOrder>('apply');
  const [open, setOpen] = useState<SetMember | undefined>();
  // Re-read at most ten times a second, and every second: the waiting objects' times move.
  useLive(
    source,
    (listener) => source.subscribe(() => listener()),
    () => `${source.members.map((m) => m.state).join()}@${Math.floor(clockNow() / 1000)}`,
  );
  const now = clockNow();
  const input = {
    members: source.members,
    now,
    startedAt: source.startedAt,
    endedAt: source.endedAt,
    watching: source.watching === true,
    order,
    ended: ended(),
    ...size,
  };
  /** The object of the selected line, if any. */
  const selectedOf = (s: ScreenState<SetPaneKey>, l: SetLayout): SetMember | undefined => {
    const keys = l.rows.map((r) => r.key);
    const win = resolveNav(navOf(s, 'objects'), keys, l.listHeight);
    return source.members.find((m) => String(m.index) === keys[win.index]);
  };
  const screen = useScreen({
    initial: () => initialScreen<SetPaneKey>('objects'),
    layout: (state) => setLayout({ ...input, state }),
    focus: (s, l) => ({ panes: ['objects'], keys: l.rows.map((r) => r.key), height: l.listHeight, openable: selectedOf(s, l) !== undefined }),
    own: (press, s, l) => {
      if (s.editing || s.help || s.detail !== undefined) return false;
      if (press.action === 'sort') {
        setOrder((o) => (o === 'apply' ? 'slowest' : 'apply'));
        return true;
      }
      const selected = selectedOf(s, l);
      if (press.action === 'open' && selected?.session) {
        setOpen(selected);
        return true;
      }
      return false;
    },
    onExit,
    extra: { s: 'sort' },
    active: open === undefined,
  });
  if (open?.session) {
    return (
      <TraceApp
        source={open.session}
        onQuit={(how) => onExit?.(how)}
        onBack={() => setOpen(undefined)}
        diagnoses={diagnosesOf?.(open)}
        clockNow={clockNow}
        {...(width !== undefined ? { width } : {})}
        {...(height !== undefined ? { height } : {})}
      />
    );
  }
  return <SetScreen {...input} state={screen.state} layout={screen.layout} />;
}

/** How long the last frame stays after the end with `exitOnEnd`. */
const LINGER_MS = 1_000;

export async function runSetTui(
  set: SetSession,
  running: Promise<unknown>,
  io: CommandIO,
  options: { signal: AbortSignal; exitOnEnd: boolean; diagnosesOf?: (m: SetMember) => DiagnosisFeed },
): Promise<'quit' | 'interrupt' | 'ended'> {
  let done = false;
  void running.then(
    () => (done = true),
    () => (done = true),
  );
  return runTui((onExit) => <SetApp source={set} ended={() => done} diagnosesOf={options.diagnosesOf} onExit={onExit} clockNow={() => set.clock.now()} />, io, {
    signal: options.signal,
    ...(options.exitOnEnd ? { endWhen: running, lingerMs: LINGER_MS } : {}),
  });
}
