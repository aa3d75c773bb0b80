/**
 * Building blocks every live screen is made of, so each frame is exactly the terminal's size: the
 * Frame (header, body, footer, and the help or a detail in the body's place) in a Screen of
 * `rows` × `columns`, panes made of a title row and a fixed number of one-line rows (the Rows of
 * src/view/rows.ts, cut to the width, never wrapped), a text view for the detail and help, and the footer (key hints or
 * the filter prompt). A pane pads itself to its row budget, so the layout does not jump when lines
 * come and go.
 *
 * Nothing here clips (ink's overflow="hidden"): every line is a Text cut to its Box's width, a pane
 * is exactly its rows, and ink draws no row below the Screen's last. Clipping would only repeat
 * that work: under a clip ink measures every line's width again and re-slices it cell by cell,
 * which at 160 columns was about a tenth of a frame's time in a 1,000-replica trace.
 *
 * What a pane shows is mostly the cluster's words, and ink passes some escape sequences through (it
 * keeps colours and OSC, so an OSC 0 in an Event's message would retitle the terminal): a Line, a
 * pane title and the footer escape their text (src/util/escape.ts), and wrapRows (src/view/rows.ts)
 * escapes before it wraps, so what it measures is what is drawn. Escaping twice changes nothing, so rows built from
 * escaped text are drawn as they are.
 */
import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import { escapeTerminal } from '../util/escape.js';
import { fit, position, type FrameText, type Row } from '../view/rows.js';
import type { ListWindow, ScreenState } from '../view/screen-state.js';

export function Screen({ width, height, children }: { width: number; height: number; children: ReactNode }): ReactNode {
  return (
    <Box flexDirection="column" width={width} height={height}>
      {children}
    </Box>
  );
}

/**
 * The frame of every TUI, `width` × `height`: the header row (a string is drawn bold and escaped;
 * an element is drawn as given, cut to the width), an optional status line under it, the body of
 * `body` rows (the panes, or `text` — the help or a detail — scrolled to `state.textTop` in their
 * place), the rows `below` it, and the footer.
 */
export function Frame({
  width,
  height,
  header,
  status,
  body,
  text,
  state,
  hints,
  below,
  children,
}: {
  width: number;
  height: number;
  header: string | ReactNode;
  status?: Row | undefined;
  body: number;
  text: FrameText | undefined;
  state: Pick<ScreenState, 'editing' | 'filter' | 'detail' | 'help' | 'textTop'>;
  hints: string;
  below?: ReactNode;
  children: ReactNode;
}): ReactNode {
  return (
    <Screen width={width} height={height}>
      <Box width={width} height={1} flexShrink={0}>
        {typeof header === 'string' ? (
          <Text wrap="truncate-end" bold>
            {escapeTerminal(header)}
          </Text>
        ) : (
          <Text wrap="truncate-end">{header}</Text>
        )}
      </Box>
      {status ? <Line row={status} width={width} /> : null}
      {text ? (
        <TextPane title={text.title} lines={text.lines} top={state.textTop} height={body} width={width} />
      ) : (
        <Box flexDirection="column" width={width} height={body} flexShrink={0}>
          {children}
        </Box>
      )}
      {below}
      <Footer state={state} hints={hints} width={width} />
    </Screen>
  );
}

export function Line({ row, selected, width }: { row: Row; selected?: boolean | undefined; width: number }): ReactNode {
  const text = escapeTerminal(row.text);
  const style = {
    wrap: 'truncate-end',
    inverse: selected ?? false,
    bold: row.bold ?? false,
    dimColor: row.dim ?? false,
    ...(row.color ? { color: row.color } : {}),
  } as const;
  // A long line of plain ASCII is cut here as ink's truncate-end would cut it: ink measures every
  // grapheme of the text it is given, and a trace's hop lines (with their Events) run to hundreds
  // of columns, ten frames a second. The ellipsis is a Text of its own, so that what ink measures
  // stays ASCII: one character beyond it sends ink's measure grapheme by grapheme through the whole
  // line, at every frame. Other text is left to ink, which knows wide characters.
  if (width > 1 && text.length > width && PRINTABLE_ASCII.test(text)) {
    return (
      <Box width={width} height={1} flexShrink={0}>
        <Text {...style}>{text.slice(0, width - 1)}</Text>
        <Text {...style}>…</Text>
      </Box>
    );
  }
  return (
    <Box width={width} height={1} flexShrink={0}>
      <Text {...style}>{text === '' ? ' ' : text.length > width && PRINTABLE_ASCII.test(text) ? fit(text, width) : text}</Text>
    </Box>
  );
}

/**
 * `─ Timeline · 42 hops ───────── following`; the focused pane's title is highlighted. The rule
 * between the two texts is a top border, which ink draws without measuring it (as text, its
 * non-ASCII dashes were measured grapheme by grapheme at every frame).
 */
export function PaneTitle({ title, right, focused, width }: { title: string; right?: string | undefined; focused: boolean; width: number }): ReactNode {
  const colour = focused ? { color: 'cyan' } : { dimColor: true };
  const left = `─ ${escapeTerminal(title)} `;
  const tail = right ? ` ${escapeTerminal(right)} ─` : '';
  const fill = width - left.length - tail.length;
  return (
    <Box width={width} height={1} flexShrink={0}>
      <Text wrap="truncate-end" bold={focused} {...colour}>
        {left}
      </Text>
      {fill > 0 ? (
        <Box
          flexGrow={1}
          height={1}
          borderStyle="single"
          borderTop
          borderBottom={false}
          borderLeft={false}
          borderRight={false}
          {...(focused ? { borderColor: 'cyan' } : { borderDimColor: true })}
        />
      ) : null}
      {tail ? (
        <Text wrap="truncate-end" bold={focused} {...colour}>
          {tail}
        </Text>
      ) : null}
    </Box>
  );
}

/**
 * `height` rows from `window.top`; the selected one inverted when the pane has the focus. `rows`
 * may be only a slice of a long list: `first` is the index of its first row in the whole list.
 */
export interface RowsProps {
  rows: readonly Row[];
  window: ListWindow;
  height: number;
  width: number;
  focused: boolean;
  emptyText?: string | undefined;
  first?: number;
}

export function Rows({ rows, window, height, width, focused, emptyText, first = 0 }: RowsProps): ReactNode {
  if (height <= 0) return null;
  const shown = rows.slice(window.top - first, window.top - first + height);
  const empty = rows.length === 0 && first === 0 && emptyText;
  const pad = height - shown.length - (empty ? 1 : 0);
  return (
    <Box flexDirection="column" width={width} height={height} flexShrink={0}>
      {empty ? <Line row={{ key: 'empty', text: emptyText, dim: true }} width={width} /> : null}
      {shown.map((r, i) => (
        <Line key={r.key} row={r} selected={focused && window.top + i === window.index} width={width} />
      ))}
      {Array.from({ length: Math.max(0, pad) }, (_, i) => (
        <Line key={`pad-${i}`} row={{ key: `pad-${i}`, text: '' }} width={width} />
      ))}
    </Box>
  );
}

/**
 * A title row (with where the window is, when the list is longer) and `height - 1` rows of a list.
 * For a long list, `rows` can be the slice on screen, from index `first` of `total` lines.
 */
export function Pane({
  title,
  right,
  total,
  ...list
}: RowsProps & {
  title: string;
  right?: string | undefined;
  total?: number;
}): ReactNode {
  const { rows, window, height, width, focused } = list;
  if (height <= 0) return null;
  const where = [right, position(window, total ?? rows.length, height - 1)].filter(Boolean).join(' · ');
  return (
    <Box flexDirection="column" width={width} height={height} flexShrink={0}>
      <PaneTitle title={title} right={where || undefined} focused={focused} width={width} />
      <Rows {...list} height={height - 1} />
    </Box>
  );
}

/** Scrolled text (the detail, the help): a title row and `height - 1` lines from `top`. */
export function TextPane({
  title,
  lines,
  top,
  height,
  width,
}: {
  title: string;
  lines: readonly Row[];
  top: number;
  height: number;
  width: number;
}): ReactNode {
  return <Pane title={title} rows={lines} window={{ index: -1, top }} height={height} width={width} focused />;
}

/** The last row: the filter prompt while typing, else the filter in force and the key hints. */
export function Footer({
  state,
  hints,
  width,
}: {
  state: Pick<ScreenState, 'editing' | 'filter' | 'detail' | 'help'>;
  hints: string;
  width: number;
}): ReactNode {
  if (state.editing) {
    return (
      <Box width={width} height={1} flexShrink={0}>
        <Text wrap="truncate-start">
          <Text color="cyan">/</Text>
          {escapeTerminal(state.filter)}
          <Text inverse> </Text>
          <Text dimColor> Enter keep · Esc clear</Text>
        </Text>
      </Box>
    );
  }
  const where = state.help ? 'Esc close' : state.detail !== undefined ? 'Esc back · ↑/↓ scroll' : hints;
  return (
    <Box width={width} height={1} flexShrink={0}>
      <Text wrap="truncate-end">
        {state.filter ? (
          <Text color="cyan">
            filter: {escapeTerminal(state.filter)} <Text dimColor>(Esc clears) · </Text>
          </Text>
        ) : null}
        <Text dimColor>{escapeTerminal(where)}</Text>
      </Text>
    </Box>
  );
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
