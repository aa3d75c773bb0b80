/**
 * The trace TUI container: TraceApp subscribes to the tracer (useLive: its snapshot re-read at most
 * ten times a second, and every second), owns the screen (useScreen), the main pane's view and the
 * diagnoses; TraceScreen (trace-screen.tsx) draws the layout of src/view/trace-layout.ts. Enter on
 * a hop opens its detail; Enter on a tree line filters the timeline to that object.
 *
 * runTraceTui mounts it; it resolves when q or Ctrl+C is pressed or the signal aborts. When the
 * trace ends the screen stays, showing the outcome, until q — or, with `exitOnEnd`, closes a
 * moment later.
 */
import { useEffect, useRef, useState } from 'react';
import type { CommandIO } from '../cli/io.js';
import type { ControllerBehind, Diagnosis } from '../diagnose/index.js';
import type { TraceEvent, TraceSnapshot } from '../trace/index.js';
import type { QueuesRow } from '../view/queues-rows.js';
import { initialScreen, navOf } from '../view/screen-state.js';
import { DIAGNOSIS, panes, traceLayout, type DiagnosisShown, type MainView, type Pane } from '../view/trace-layout.js';
import { useLive, useSize } from './live.js';
import { runTui } from './mount.js';
import { TraceScreen } from './trace-screen.js';
import { useQueuesView, type MetricsFeed } from './use-queues-view.js';
import { useScreen } from './use-screen.js';

export interface TraceSource {
  snapshot(): TraceSnapshot;
  subscribe(fn: (e: TraceEvent) => void): () => void;
}

/**
 * Where the chain is stuck. `diagnose` computes one now from the trace's caches (the `d` key);
 * the trace pushes its own through `subscribe` when it stalls (--stall) or ends without
 * converging, and the screen shows those by itself.
 */
export interface DiagnosisFeed {
  diagnose(): Promise<Diagnosis>;
  subscribe(fn: (pushed: PushedDiagnosis) => void): () => void;
  /** For a custom resource: the operator behind it as it is now (its Lease, its queue), read when a hop is opened. */
  controller?: (() => Promise<ControllerBehind | undefined>) | undefined;
}

export interface PushedDiagnosis {
  diagnosis: Diagnosis;
  /** What prompted it: `no new hop for 20s`, `timed out after 2m`. */
  why: string;
  /** The trace ended without converging: the last word, shown even when the finding is the same. */
  ended?: boolean;
}

export type TraceExit = 'quit' | 'interrupt';

export interface TraceAppProps {
  source: TraceSource;
  onQuit: (how: TraceExit) => void;
  clockNow?: () => number;
  metrics?: MetricsFeed | undefined;
  /** Diagnoses: on `d`, and those the trace pushes (a stall, the timeout). */
  diagnoses?: DiagnosisFeed | undefined;
  /** Opened from another screen (a set's list): q goes back there; Ctrl+C still quits. */
  onBack?: (() => void) | undefined;
  /** Fixed size (tests); default the terminal's, re-read on resize. */
  width?: number;
  height?: number;
}

export function TraceApp({ source, onQuit, onBack, clockNow = Date.now, metrics, diagnoses, width, height }: TraceAppProps): React.JSX.Element {
  const { width: w, height: h } = useSize(width, height);
  const [main, setMain] = useState<MainView>('timeline');
  const [diagnosis, setDiagnosis] = useState<DiagnosisShown | undefined>();
  const [controller, setController] = useState<{ behind: ControllerBehind; at: number } | undefined>();
  /** Counts diagnoses asked for, so an older one that finishes late does not replace a newer one. */
  const asked = useRef(0);
  const queues = useQueuesView(metrics);
  const snapshot = useLive(
    source,
    (listener) => source.subscribe(() => listener()),
    () => source.snapshot(),
  );

  const screen = useScreen({
    initial: () => initialScreen<Pane>('timeline', ['timeline']),
    layout: (state) => traceLayout(snapshot, state, w, h, queues, diagnosis, controller),
    focus: (s, l) => ({
      panes,
      keys: l.keys[s.pane],
      height: Math.max(1, l.heights[s.pane] - 1),
      openable:
        s.pane === 'timeline'
          ? main === 'timeline'
          : s.pane === 'internals'
            ? Boolean((l.rows.internals[l.windows.internals.index] as QueuesRow | undefined)?.detail)
            : false,
    }),
    own: (press, s, l) => {
      if (press.action === 'diagnose' && !s.editing) {
        diagnoseNow();
        return true;
      }
      if (s.editing || s.help || s.detail !== undefined) return false;
      if (press.action === 'waterfall') {
        setMain((m) => (m === 'timeline' ? 'waterfall' : 'timeline'));
        return true;
      }
      if (press.action !== 'open' || s.pane !== 'tree') return false;
      const row = l.rows.tree[l.windows.tree.index];
      return row && row.key !== 'more'
        ? { ...s, filter: row.key, pane: 'timeline', nav: { ...s.nav, timeline: { ...navOf(s, 'timeline'), follow: true } } }
        : true;
    },
    onExit: onQuit,
    onBack,
    extra: { w: 'waterfall', d: 'diagnose' },
  });
  const { state } = screen;
  // A hop opened: the operator behind the target, read again for it.
  const openHop = state.detail !== undefined && state.detail !== DIAGNOSIS && state.detailPane !== 'internals' ? state.detail : undefined;
  useEffect(() => {
    if (openHop === undefined || !diagnoses?.controller) return undefined;
    let live = true;
    diagnoses.controller().then(
      (behind) => live && behind && setController({ behind, at: clockNow() }),
      () => undefined,
    );
    return () => void (live = false);
  }, [openHop, diagnoses, clockNow]);

  const openDiagnosis = (shown: DiagnosisShown): void => {
    setDiagnosis(shown);
    const s = screen.current();
    if (s.detail !== DIAGNOSIS || s.detailPane !== undefined)
      screen.set({ ...s, editing: false, help: false, detail: DIAGNOSIS, detailPane: undefined, textTop: 0 });
  };
  const diagnoseNow = (): void => {
    if (!diagnoses) {
      openDiagnosis({ state: 'failed', why: 'on demand', error: 'this screen has no cluster connection to diagnose with' });
      return;
    }
    const n = ++asked.current;
    const why = `on demand at ${new Date(clockNow()).toISOString().slice(11, 19)}`;
    openDiagnosis({ state: 'running', why });
    diagnoses.diagnose().then(
      (d) => n === asked.current && setDiagnosis({ state: 'done', why, diagnosis: d }),
      (err: unknown) => n === asked.current && setDiagnosis({ state: 'failed', why, error: err instanceof Error ? err.message : String(err) }),
    );
  };
  // The trace's own diagnoses (a stall, the timeout) open the pane by themselves; they replace
  // any diagnosis still being computed on demand.
  const shownKey = useRef<string | undefined>(undefined);
  // biome-ignore lint/correctness/useExhaustiveDependencies: openDiagnosis reads the current state through a ref; subscribing again on each render would miss pushes
  useEffect(() => {
    if (!diagnoses) return undefined;
    return diagnoses.subscribe(({ diagnosis: d, why, ended }) => {
      asked.current++;
      // A further stall with the same finding refreshes the pane without opening it again.
      const key = `${d.verdict}/${d.link ?? ''}/${d.summary}`;
      const again = shownKey.current === key && !ended;
      shownKey.current = key;
      if (again) setDiagnosis({ state: 'done', why, diagnosis: d });
      else openDiagnosis({ state: 'done', why, diagnosis: d });
    });
    // openDiagnosis reads the current state through a ref, so it need not be a dependency.
  }, [diagnoses]);

  return (
    <TraceScreen
      snapshot={snapshot}
      state={state}
      main={main}
      now={clockNow()}
      width={w}
      height={h}
      queues={queues}
      layout={screen.layout}
      diagnosis={diagnosis}
    />
  );
}

/** How long the last frame stays after the end with `exitOnEnd`. */
const LINGER_MS = 1_000;

export async function runTraceTui(
  source: TraceSource,
  ended: Promise<unknown>,
  io: CommandIO,
  signal: AbortSignal,
  metrics?: MetricsFeed,
  options: { exitOnEnd?: boolean; diagnoses?: DiagnosisFeed } = {},
): Promise<'quit' | 'ended' | 'interrupt'> {
  return runTui((onExit) => <TraceApp source={source} onQuit={onExit} {...(metrics ? { metrics } : {})} diagnoses={options.diagnoses} />, io, {
    signal,
    ...(options.exitOnEnd ? { endWhen: ended, lingerMs: LINGER_MS } : {}),
  });
}
