// Frame time of the set TUI (`--apply -f DIR` on a terminal: src/tui/set-app.tsx and set-screen.tsx,
// as built into dist/) over the objects of a real run: bench/apply-set.mjs.
//
// The objects are rebuilt as the TUI holds them (SetMember) from the `-o json` report of our run:
// each written at the run's start and ready `readyMs` later, with its rule's verdict. A frame is
// what the TUI redraws: the whole container rendered by ink to a string at the terminal's size
// (the list laid out, sorted and windowed, the header counted), as bench/cache-view.mjs does it.
// Three scenarios, each `frames` frames after `warmup`:
//   - the finished set, in apply order (SetApp, the clock 100 ms further each frame);
//   - the finished set, the slowest first (SetScreen with setLayout, what SetApp draws after `s`:
//     the 400 objects sorted each frame);
//   - mid-run: the objects ready one after another, one more each frame, the others waiting and
//     their times moving (SetApp).
import { timeFrames } from './frame-time.mjs';

const T0 = 1_790_000_000_000;

/** `deployment.apps/web` → what memberLabel reads of the kind (singular name and group). */
function infoOf(label, apiVersion, kind) {
  const typed = label.slice(0, label.indexOf('/'));
  const dot = typed.indexOf('.');
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  return {
    group,
    version: apiVersion.slice(apiVersion.indexOf('/') + 1),
    resource: `${kind.toLowerCase()}s`,
    kind,
    namespaced: true,
    singularName: dot < 0 ? typed : typed.slice(0, dot),
    verbs: ['get', 'list', 'watch', 'create', 'patch'],
  };
}

/** The report's objects (SetObjectView) as the TUI's members, every one settled. */
function membersOf(objects) {
  return objects.map((o, index) => ({
    index,
    source: o.source,
    apiVersion: o.apiVersion,
    kind: o.kind,
    namespace: o.namespace,
    name: o.name,
    step: 'workloads',
    info: infoOf(o.object, o.apiVersion, o.kind),
    state: o.state,
    applied: o.apply === 'refused' || o.apply === 'not applied' ? undefined : o.apply,
    appliedAt: T0,
    ...(o.readyMs !== undefined ? { readyAt: T0 + o.readyMs, settledAt: T0 + o.readyMs } : {}),
    ...(o.rule ? { verdict: { status: o.status, rule: o.rule, layer: 'builtin', detail: o.detail ?? '' } } : {}),
    ...(o.message ? { message: o.message } : {}),
  }));
}

/** Frame times (ms: median, p95, max, CPU per frame) of the set TUI over `objects` at `width` x `height`. */
export async function setFrameTimes(objects, { width = 160, height = 45, warmup = 20, frames = 200 } = {}) {
  // What ships is bundled with React's production build; React picks its build when first loaded.
  process.env.NODE_ENV ??= 'production';
  // renderToString has no terminal; ink would ask `tput` for its size unless the environment says it.
  process.env.COLUMNS ??= String(width);
  process.env.LINES ??= String(height);
  const { createElement } = await import('react');
  const { renderToString } = await import('ink');
  const { SetApp } = await import('../../dist/tui/set-app.js');
  const { SetScreen } = await import('../../dist/tui/set-screen.js');
  const { setLayout } = await import('../../dist/view/set-layout.js');
  const { initialScreen } = await import('../../dist/view/screen-state.js');

  const members = membersOf(objects);
  const endedAt = T0 + Math.max(0, ...objects.map((o) => o.readyMs ?? 0));
  const source = (ms, ended) => ({ members: ms, startedAt: T0, endedAt: ended ? endedAt : undefined, subscribe: () => () => undefined });
  const draw = (element) => renderToString(element, { columns: width });
  const finished = source(members, true);

  const readyOrder = members.filter((m) => m.readyAt !== undefined).sort((a, b) => a.readyAt - b.readyAt);
  const midRun = (i) => {
    const k = i % (readyOrder.length + 1);
    const now = k < readyOrder.length ? readyOrder[k].readyAt : endedAt;
    const shown = members.map((m) =>
      m.readyAt !== undefined && m.readyAt > now ? { ...m, state: 'applied', readyAt: undefined, settledAt: undefined, verdict: undefined } : m,
    );
    return { shown, now };
  };

  const scenarios = [
    [
      'the finished set, in apply order',
      (i) => draw(createElement(SetApp, { source: finished, ended: () => true, clockNow: () => endedAt + i * 100, width, height })),
    ],
    [
      'the finished set, the slowest first',
      (i) => {
        const props = {
          members,
          now: endedAt + i * 100,
          startedAt: T0,
          endedAt,
          watching: false,
          order: 'slowest',
          state: initialScreen('objects'),
          ended: true,
          width,
          height,
        };
        return draw(createElement(SetScreen, { ...props, layout: setLayout(props) }));
      },
    ],
    [
      'mid-run: one more object ready each frame',
      (i) => {
        const { shown, now } = midRun(i);
        return draw(createElement(SetApp, { source: source(shown, false), ended: () => false, clockNow: () => now, width, height }));
      },
    ],
  ];
  const sample = draw(createElement(SetApp, { source: finished, ended: () => true, clockNow: () => endedAt, width, height }));
  return {
    width,
    height,
    objects: members.length,
    frames,
    warmup,
    scenarios: scenarios.map(([name, frame]) => ({ name, ...timeFrames(frame, { warmup, frames }) })),
    sample,
  };
}
