/**
 * The trace TUI. TraceApp (container) subscribes to the tracer and re-reads its snapshot at most
 * ten times a second; TraceScreen (display) only renders props. Panes: tree, timeline, internals
 * (tab switches which one is large); q quits, ? toggles help. Finished hops go to <Static> so a long
 * trace stays cheap to redraw.
 */
import { Box, Static, Text, useApp, useInput } from 'ink';
import { useEffect, useMemo, useState } from 'react';
import type { TraceSnapshot } from '../trace/tracer.js';
import type { Hop, TraceEvent } from '../trace/types.js';
import { formatDuration } from '../util/duration.js';
import { hopLine, summarise, summaryLines, treeLines } from '../view/trace-view.js';
import { Throttle } from './throttle.js';
import { QueuesPane } from './queues-pane.js';
import { useQueuesView, type MetricsFeed } from './use-queues-view.js';
import type { QueuesView } from '../view/queues-view.js';

export interface TraceSource {
  snapshot(): TraceSnapshot;
  subscribe(fn: (e: TraceEvent) => void): () => void;
}

export const panes = ['tree', 'timeline', 'internals'] as const;
export type Pane = (typeof panes)[number];

export function nextPane(p: Pane): Pane {
  return panes[(panes.indexOf(p) + 1) % panes.length]!;
}

export interface TraceScreenProps {
  snapshot: TraceSnapshot;
  pane: Pane;
  help: boolean;
  now: number;
  /** Rows the tree may take before it is cut (a target with 10,000 Pods must stay cheap). */
  treeRows?: number;
  /** The controllers' queues (--metrics), shown under Internals. */
  queues?: QueuesView | undefined;
}

function HopRow({ hop }: { hop: Hop }): React.JSX.Element {
  const colour = hop.kind === 'converged' ? 'green' : hop.kind === 'failed' || hop.kind === 'not-ready' ? 'red' : hop.kind === 'deleted' || hop.kind === 'terminating' ? 'yellow' : undefined;
  return <Text {...(colour ? { color: colour } : {})}>{hopLine(hop)}</Text>;
}

export function TraceScreen({ snapshot, pane, help, now, treeRows = 20, queues }: TraceScreenProps): React.JSX.Element {
  const sum = summarise(snapshot, now);
  const tree = treeLines(snapshot.tree, pane === 'tree' ? treeRows * 2 : treeRows);
  const q = snapshot.queue;
  return (
    <Box flexDirection="column">
      <Box>
        <Text bold>{sum.target}</Text>
        <Text> · {sum.trigger}</Text>
      </Box>
      <Text color={sum.outcome === 'converged' || sum.outcome === 'no-rollout' || sum.outcome === 'deleted' ? 'green' : sum.outcome === 'running' ? 'cyan' : 'red'}>
        {sum.outcome}
        {sum.elapsedMs !== undefined ? ` · ${formatDuration(sum.elapsedMs)}` : ''}
        {sum.slowestHop ? ` · slowest hop ${sum.slowestHop.object} ${sum.slowestHop.kind} +${formatDuration(sum.slowestHop.sincePreviousMs)}` : ''}
      </Text>
      {help ? (
        <Box borderStyle="round" flexDirection="column" paddingX={1}>
          <Text>q quit · tab next pane · ? help</Text>
          <Text>tree: the target and what it owns, live · timeline: hops since the trigger · internals: informers and our workqueue</Text>
        </Box>
      ) : null}
      <Box flexDirection="column" borderStyle={pane === 'tree' ? 'double' : 'single'} paddingX={1}>
        <Text bold>Tree</Text>
        {tree.lines.map((l, i) => (
          <Text key={i} {...(l.deleting ? { color: 'yellow' } : l.ready ? {} : { color: 'cyan' })}>
            {'  '.repeat(l.depth)}
            {l.label} {l.status}
            {l.node ? ` ${l.node}` : ''}
            {l.restarts ? ` restarts ${l.restarts}` : ''}
          </Text>
        ))}
        {tree.hidden > 0 ? <Text dimColor>… {tree.hidden} more</Text> : null}
      </Box>
      <Box flexDirection="column" borderStyle={pane === 'timeline' ? 'double' : 'single'} paddingX={1}>
        <Text bold>Timeline ({snapshot.hops.length} hops)</Text>
        {snapshot.hops.slice(pane === 'timeline' ? -30 : -8).map((h) => (
          <HopRow key={h.id} hop={h} />
        ))}
      </Box>
      <Box flexDirection="column" borderStyle={pane === 'internals' ? 'double' : 'single'} paddingX={1}>
        <Text bold>Internals</Text>
        {snapshot.informers.map((i) => (
          <Text key={i.name}>
            {i.description}: {i.objects} objects · +{i.events.ADDED} ~{i.events.MODIFIED} -{i.events.DELETED} · {i.bookmarks} bookmarks · {i.relists} relists · {i.watchRestarts} watch restarts · backlog {i.backlog}
          </Text>
        ))}
        {q ? (
          <Text>
            workqueue {q.name}: depth {q.depth} · adds {q.adds} · retries {q.retries} · reconciles {snapshot.reconciles}
          </Text>
        ) : null}
        {snapshot.burst ? <Text>{summaryLines(sum).find((l) => l.startsWith('burst'))}</Text> : null}
        {queues ? <QueuesPane view={queues} width={96} maxRows={pane === 'internals' ? 20 : 5} /> : null}
      </Box>
      {snapshot.outcome ? <Text>{sum.message}</Text> : null}
    </Box>
  );
}

export function TraceApp({ source, onQuit, clockNow = Date.now, metrics }: { source: TraceSource; onQuit: () => void; clockNow?: () => number; metrics?: MetricsFeed }): React.JSX.Element {
  const { exit } = useApp();
  const [snapshot, setSnapshot] = useState(() => source.snapshot());
  const [pane, setPane] = useState<Pane>('timeline');
  const [help, setHelp] = useState(false);
  const [done, setDone] = useState<Hop[]>([]);
  const queues = useQueuesView(metrics);
  const throttle = useMemo(() => new Throttle(() => setSnapshot(source.snapshot()), 100), [source]);
  useEffect(() => {
    const unsubscribe = source.subscribe((e) => {
      if (e.type === 'end') setDone(source.snapshot().hops);
      throttle.request();
    });
    const tick = setInterval(() => throttle.request(), 1000);
    return () => {
      unsubscribe();
      clearInterval(tick);
      throttle.stop();
    };
  }, [source, throttle]);
  useInput((input, key) => {
    if (input === 'q') {
      onQuit();
      exit();
    } else if (key.tab) setPane((p) => nextPane(p));
    else if (input === '?') setHelp((h) => !h);
  });
  return (
    <>
      <Static items={done}>{(h) => <HopRow key={h.id} hop={h} />}</Static>
      <TraceScreen snapshot={snapshot} pane={pane} help={help} now={clockNow()} queues={queues} />
    </>
  );
}
