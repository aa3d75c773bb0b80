/**
 * `kubectl informer-trace queues -o tui`: the queues pane as a whole screen. The container owns
 * the metrics subscription (through useQueuesView), the keys and the terminal width; q quits,
 * a toggles idle queues.
 */
import { Box, Text, useApp, useInput, useStdin, useWindowSize } from 'ink';
import { useState, type ReactNode } from 'react';
import type { CommandIO } from '../cli/io.js';
import { formatDuration } from '../util/duration.js';
import { QueuesPane } from './queues-pane.js';
import { useQueuesView, type MetricsFeed } from './use-queues-view.js';
import { mountTui } from './mount.js';

export interface QueuesAppProps {
  feed: MetricsFeed;
  names: readonly string[];
  includeIdle: boolean;
  onExit?: (reason: 'quit' | 'interrupt') => void;
  width?: number;
}

export function QueuesApp({ feed, names, includeIdle, onExit, width }: QueuesAppProps): ReactNode {
  const { exit } = useApp();
  const { columns } = useWindowSize();
  const { isRawModeSupported } = useStdin();
  const [idle, setIdle] = useState(includeIdle);
  const view = useQueuesView(feed, { names, includeIdle: idle });
  useInput(
    (input, key) => {
      if (input === 'q' || (key.ctrl && input === 'c')) {
        onExit?.(input === 'q' ? 'quit' : 'interrupt');
        exit();
      } else if (input === 'a') setIdle((v) => !v);
    },
    { isActive: isRawModeSupported },
  );
  const w = width ?? Math.max(80, (columns || 100) - 1);
  return (
    <Box flexDirection="column" width={w}>
      <Text>
        <Text bold>queues</Text> {view ? `${new Date(view.atMs).toISOString().slice(11, 19)} UTC · every ${formatDuration(view.intervalMs)}` : ''}
        <Text dimColor> (a {idle ? 'hide' : 'show'} idle queues, q quit)</Text>
      </Text>
      {view ? <QueuesPane view={view} width={w} maxRows={40} title="" /> : null}
    </Box>
  );
}

export async function runQueuesTui(feed: MetricsFeed, io: CommandIO, options: { signal: AbortSignal; forMs: number; names: readonly string[]; includeIdle: boolean }): Promise<'quit' | 'interrupt' | 'done'> {
  let reason: 'quit' | 'interrupt' | 'done' = 'done';
  const app = <QueuesApp feed={feed} names={options.names} includeIdle={options.includeIdle} onExit={(r) => (reason = r)} />;
  const how = await mountTui(app, io, { signal: options.signal, endAfterMs: options.forMs });
  return how === 'interrupt' ? 'interrupt' : reason;
}
