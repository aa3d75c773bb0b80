import { afterEach, describe, expect, it } from 'vitest';
import { controlsIn, HOSTILE, HOSTILE_SHOWN, SHOWN } from '../../tools/testing/hostile.js';
import { renderInk, type InkHarness } from '../../tools/testing/ink.js';
import { initialScreen } from '../view/screen-state.js';
import { textRows } from '../view/rows.js';
import { Footer, Frame, Line, PaneTitle, Rows } from './frame.js';

let harness: InkHarness | undefined;
afterEach(() => {
  harness?.unmount();
  harness = undefined;
});

describe('Line', () => {
  it('cuts a long ASCII line to the width with an ellipsis, as ink would', () => {
    const text = `+1.20s (+50ms) Pod/web-1 ready  ${'Scheduled: Successfully assigned ns/web-1 to kwok-node-0; '.repeat(6)}`;
    harness = renderInk(<Line row={{ key: 'a', text }} width={40} />);
    expect(harness.frame()).toBe(`${text.slice(0, 39)}…`);
  });

  it('leaves wide characters to ink, which cuts by columns', () => {
    const text = `Pod/web-1 → ${'漢字'.repeat(40)}`;
    harness = renderInk(<Line row={{ key: 'a', text }} width={30} />);
    const frame = harness.frame();
    expect(frame.startsWith('Pod/web-1 → 漢字')).toBe(true);
    expect(frame.endsWith('…')).toBe(true);
    // Each 漢 takes two columns: the line fills at most 30 of them.
    expect([...frame].reduce((w, ch) => w + (/[\u4e00-\u9fff]/.test(ch) ? 2 : 1), 0)).toBeLessThanOrEqual(30);
  });

  it('keeps a short line as it is', () => {
    harness = renderInk(<Line row={{ key: 'a', text: 'ReplicaSet/web-7d9f created' }} width={40} />);
    expect(harness.frame()).toBe('ReplicaSet/web-7d9f created');
  });
});

describe('PaneTitle', () => {
  it('fills the width with the rule between the title and what is on the right', () => {
    harness = renderInk(<PaneTitle title="Timeline · 3 hops" right="following" focused width={40} />);
    expect(harness.frame()).toBe(`─ Timeline · 3 hops ${'─'.repeat(40 - 20 - 12)} following ─`);
    harness.unmount();
    harness = renderInk(<PaneTitle title="Tree" focused={false} width={12} />);
    expect(harness.frame()).toBe(`─ Tree ${'─'.repeat(5)}`);
  });

  it('stays on one line of the width when the texts are wider than it', () => {
    harness = renderInk(<PaneTitle title="Timeline · 7,015 hops" right="paused · G or f to follow" focused width={20} />);
    const lines = harness.frame().split('\n');
    expect(lines).toHaveLength(1);
    expect([...lines[0]!].length).toBeLessThanOrEqual(20);
  });
});

describe('hostile text on screen', () => {
  it('a Line shows control characters escaped, on one row, however it is coloured or cut', () => {
    for (const width of [200, 40]) {
      harness?.unmount();
      harness = renderInk(<Line row={{ key: 'a', text: HOSTILE, color: 'red', bold: true }} selected width={width} />);
      const f = harness.frame();
      expect(controlsIn(f, { sgr: true })).toEqual([]);
      expect(f.split('\n')).toHaveLength(1);
      expect(f).toContain(width === 200 ? HOSTILE_SHOWN : HOSTILE_SHOWN.slice(0, 20));
    }
  });

  it('a pane title and the footer (the filter typed, its prompt) are escaped too', () => {
    harness = renderInk(<PaneTitle title={`Objects under app=${HOSTILE}`} right={HOSTILE} focused width={300} />);
    expect(controlsIn(harness.frame(), { sgr: true })).toEqual([]);
    expect(harness.frame()).toContain(`app=${HOSTILE_SHOWN}`);
    for (const editing of [false, true]) {
      harness.unmount();
      harness = renderInk(<Footer state={{ ...initialScreen('a'), editing, filter: HOSTILE }} hints="q quit" width={300} />);
      expect(controlsIn(harness.frame(), { sgr: true })).toEqual([]);
      expect(harness.frame()).toContain(SHOWN[0]);
    }
  });
});

describe('Frame', () => {
  const panes = <Rows rows={textRows(['pod-a', 'pod-b'])} window={{ index: 0, top: 0 }} height={3} width={40} focused={false} />;

  it('is exactly the screen: the header, the body of panes, the rows below and the footer', () => {
    const state = initialScreen('objects');
    harness = renderInk(
      <Frame
        width={40}
        height={6}
        header="cache pods"
        body={3}
        text={undefined}
        state={state}
        hints="q quit"
        below={<Line row={{ key: 'e', text: 'an error' }} width={40} />}
      >
        {panes}
      </Frame>,
    );
    expect(
      harness
        .frame()
        .split('\n')
        .map((l) => l.trimEnd()),
    ).toEqual(['cache pods', 'pod-a', 'pod-b', '', 'an error', 'q quit']);
  });

  it('shows the help in the body in place of the panes, scrolled to textTop, with the footer saying how to close it', () => {
    const state = { ...initialScreen('objects'), help: true, textTop: 1 };
    harness = renderInk(
      <Frame width={40} height={5} header="cache pods" body={3} text={{ title: 'Keys', lines: textRows(['one', 'two', 'three']) }} state={state} hints="q quit">
        {panes}
      </Frame>,
    );
    const rows = harness.frame().split('\n');
    expect(rows).toHaveLength(5);
    expect(rows[1]).toContain('─ Keys');
    expect(rows.slice(2, 4).map((l) => l.trimEnd())).toEqual(['two', 'three']);
    expect(rows[4]).toBe('Esc close');
    expect(harness.frame()).not.toContain('pod-a');
  });
});
