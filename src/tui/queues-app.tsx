/**
 * `kubectl informer-trace queues -o tui`: the queues pane as a whole screen, sized to the terminal
 * (see mount.tsx for the screen model). The container owns the metrics subscription (through
 * useQueuesView), the screen state, the keys (src/tui/keymap.ts, plus `a` for idle queues) and the
 * terminal size. Enter on a queue, a controller or a source shows all of its numbers. The last
 * snapshot is printed once, as `-o table` prints it, when the screen is left.
 */
import { Box, Text, useApp, useInput, useStdin, useWindowSize } from 'ink';
import { useRef, useState, type ReactNode } from 'react';
import type { CommandIO } from '../cli/io.js';
import { renderQueuesTable } from '../output/queues-table.js';
import { formatDuration } from '../util/duration.js';
import { buildQueuesView, type QueuesView } from '../view/queues-view.js';
import { initialScreen, navOf, reduceScreen, resolveNav, type Press, type ScreenState } from '../view/screen-state.js';
import { Footer, Pane, Screen, TextPane, wrapRows, type Row } from './frame.js';
import { helpLines, pressesOf } from './keymap.js';
import { mountTui } from './mount.js';
import { queuesRows, type QueuesRow } from './queues-pane.js';
import { useQueuesView, type MetricsFeed } from './use-queues-view.js';

export interface QueuesAppProps {
  feed: MetricsFeed;
  names: readonly string[];
  includeIdle: boolean;
  onExit?: (reason: 'quit' | 'interrupt') => void;
  /** Fixed size (tests); default the terminal's. */
  width?: number;
  height?: number;
}

type QueuesPaneKey = 'queues';
const OWN_KEYS = [{ keys: 'a', what: 'show / hide idle queues' }];

interface QueuesLayout {
  rows: QueuesRow[];
  body: number;
  text: { title: string; lines: Row[] } | undefined;
}

function queuesLayout(view: QueuesView | undefined, state: ScreenState<QueuesPaneKey>, width: number, height: number): QueuesLayout {
  const rows = view ? queuesRows(view, width, { filter: state.filter }) : [];
  const body = Math.max(0, height - 2);
  let text: QueuesLayout['text'];
  if (state.help) text = { title: 'Keys', lines: helpLines(OWN_KEYS).map((t, i) => ({ key: String(i), text: t })) };
  else if (state.detail !== undefined)
    text = {
      title: 'Detail',
      lines: (rows.find((r) => r.key === state.detail)?.detail?.() ?? ['no longer shown']).map((t, i) => ({ key: String(i), text: t })),
    };
  return { rows, body, text: text && { ...text, lines: wrapRows(text.lines, width) } };
}

export function QueuesApp({ feed, names, includeIdle, onExit, width, height }: QueuesAppProps): ReactNode {
  const { exit } = useApp();
  const size = useWindowSize();
  const { isRawModeSupported } = useStdin();
  const [idle, setIdle] = useState(includeIdle);
  const [state, setState] = useState(() => initialScreen<QueuesPaneKey>('queues'));
  const view = useQueuesView(feed, { names, includeIdle: idle });
  const w = width ?? size.columns;
  const h = height ?? size.rows;
  const layout = queuesLayout(view, state, w, h);
  const current = useRef({ layout, state });
  current.current = { layout, state };
  const handle = (press: Press): void => {
    const { layout: l, state: s } = current.current;
    if (press.action === 'interrupt' || (press.action === 'quit' && !s.editing)) {
      onExit?.(press.action === 'quit' ? 'quit' : 'interrupt');
      exit();
      return;
    }
    if (press.action === 'toggleIdle' && !s.editing) {
      setIdle((v) => !v);
      return;
    }
    const listHeight = Math.max(1, l.body - 1);
    const win = resolveNav(
      navOf(s, 'queues'),
      l.rows.map((r) => r.key),
      listHeight,
    );
    const next = reduceScreen(s, press, {
      panes: ['queues'],
      keys: l.rows.map((r) => r.key),
      height: listHeight,
      textLines: l.text?.lines.length ?? 0,
      textHeight: listHeight,
      openable: Boolean(l.rows[win.index]?.detail),
    });
    current.current.state = next;
    setState(next);
  };
  useInput(
    (input, key) => {
      for (const p of pressesOf(input, key, { a: 'toggleIdle' })) handle(p);
    },
    { isActive: isRawModeSupported },
  );
  const listHeight = Math.max(1, layout.body - 1);
  const win = resolveNav(
    navOf(state, 'queues'),
    layout.rows.map((r) => r.key),
    listHeight,
  );
  return (
    <Screen width={w} height={h}>
      <Box width={w} height={1} flexShrink={0}>
        <Text wrap="truncate-end">
          <Text bold>queues</Text> {view ? `${new Date(view.atMs).toISOString().slice(11, 19)} UTC · every ${formatDuration(view.intervalMs)}` : ''}
          <Text dimColor> (a {idle ? 'hide' : 'show'} idle queues)</Text>
        </Text>
      </Box>
      {layout.text ? (
        <TextPane title={layout.text.title} lines={layout.text.lines} top={state.textTop} height={layout.body} width={w} />
      ) : (
        <Pane title="Controller queues" rows={layout.rows} window={win} height={layout.body} width={w} focused emptyText="waiting for the first scrape" />
      )}
      <Footer state={state} hints="? keys · / filter · Enter detail · a idle queues · q quit" width={w} />
    </Screen>
  );
}

export async function runQueuesTui(
  feed: MetricsFeed,
  io: CommandIO,
  options: { signal: AbortSignal; forMs: number; names: readonly string[]; includeIdle: boolean },
): Promise<'quit' | 'interrupt' | 'done'> {
  let reason: 'quit' | 'interrupt' | 'done' = 'done';
  const app = <QueuesApp feed={feed} names={options.names} includeIdle={options.includeIdle} onExit={(r) => (reason = r)} />;
  const how = await mountTui(app, io, { signal: options.signal, endAfterMs: options.forMs });
  io.stdout.write(renderQueuesTable(buildQueuesView(feed.latest(), { names: options.names, includeIdle: options.includeIdle })));
  return how === 'interrupt' ? 'interrupt' : reason;
}
