/**
 * The trace TUI container: TraceApp subscribes to the tracer (useLive: its snapshot re-read at most
 * ten times a second, and every second), owns the screen state, the main pane's view, the
 * diagnoses and the keys (src/tui/keymap.ts); TraceScreen (trace-screen.tsx) draws. Enter on a hop
 * opens its detail; Enter on a tree line filters the timeline to that object.
 *
 * runTraceTui mounts it; it resolves when q or Ctrl+C is pressed or the signal aborts. When the
 * trace ends the screen stays, showing the outcome, until q — or, with `exitOnEnd`, closes a
 * moment later.
 */
import { useEffect, useRef, useState } from 'react';
import type { CommandIO } from '../cli/io.js';
import type { ControllerBehind, Diagnosis } from '../diagnose/index.js';
import type { TraceSnapshot } from '../trace/tracer.js';
import type { TraceEvent } from '../trace/types.js';
import { initialScreen, navOf, reduceScreen, type Press, type ScreenContext, type ScreenState } from '../view/screen-state.js';
import { useKeys } from './keymap.js';
import { useLive, useSize } from './live.js';
import { mountTui } from './mount.js';
import type { QueuesRow } from '../view/queues-rows.js';
import { DIAGNOSIS, panes, traceLayout, type DiagnosisShown, type MainView, type Pane } from '../view/trace-layout.js';
import { TraceScreen } from './trace-screen.js';
import { useQueuesView, type MetricsFeed } from './use-queues-view.js';

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
  const [state, setState] = useState(() => initialScreen<Pane>('timeline', ['timeline']));
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

  // The keys act on what is on screen now: the layout of the last render.
  const layout = traceLayout(snapshot, state, w, h, queues, diagnosis, controller);
  const current = useRef({ layout, state });
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
  current.current = { layout, state };

  // Presses that arrive before the next render (typing, a paste) build on each other.
  const update = (next: ScreenState<Pane>): void => {
    current.current.state = next;
    setState(next);
  };
  const openDiagnosis = (shown: DiagnosisShown): void => {
    setDiagnosis(shown);
    const s = current.current.state;
    if (s.detail !== DIAGNOSIS || s.detailPane !== undefined)
      update({ ...s, editing: false, help: false, detail: DIAGNOSIS, detailPane: undefined, textTop: 0 });
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
  const handle = (press: Press): void => {
    const { layout: l, state: s } = current.current;
    if (press.action === 'diagnose' && !s.editing) {
      diagnoseNow();
      return;
    }
    if (!s.editing && !s.help && s.detail === undefined) {
      if (press.action === 'waterfall') {
        setMain((m) => (m === 'timeline' ? 'waterfall' : 'timeline'));
        return;
      }
      if (press.action === 'open' && s.pane === 'tree') {
        const win = l.windows.tree;
        const row = l.rows.tree[win.index];
        if (row && row.key !== 'more')
          update({ ...s, filter: row.key, pane: 'timeline', nav: { ...s.nav, timeline: { ...navOf(s, 'timeline'), follow: true } } });
        return;
      }
    }
    const ctx: ScreenContext<Pane> = {
      panes,
      keys: l.keys[s.pane],
      height: Math.max(1, l.heights[s.pane] - 1),
      textLines: l.text?.lines.length ?? 0,
      textHeight: Math.max(1, l.body - 1),
      openable:
        s.pane === 'timeline'
          ? main === 'timeline'
          : s.pane === 'internals'
            ? Boolean((l.rows.internals[l.windows.internals.index] as QueuesRow | undefined)?.detail)
            : false,
    };
    update(reduceScreen(s, press, ctx));
  };
  useKeys(handle, { editing: () => current.current.state.editing, onExit: onQuit, onBack, extra: { w: 'waterfall', d: 'diagnose' } });

  return (
    <TraceScreen snapshot={snapshot} state={state} main={main} now={clockNow()} width={w} height={h} queues={queues} layout={layout} diagnosis={diagnosis} />
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
  let quit: TraceExit | undefined;
  const app = <TraceApp source={source} onQuit={(how) => (quit = how)} {...(metrics ? { metrics } : {})} diagnoses={options.diagnoses} />;
  const how = await mountTui(app, io, { signal, ...(options.exitOnEnd ? { endWhen: ended, lingerMs: LINGER_MS } : {}) });
  return how === 'interrupt' ? 'interrupt' : (quit ?? 'ended');
}
