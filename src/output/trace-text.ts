/**
 * Plain-text trace for pipes and CI: hop lines as they happen, in time order, then the summary and
 * internals. A hop line carries the cluster's words (object names, Event reasons and messages, a
 * condition's reason): every line is escaped (src/util/escape.ts) and stays one line; the tables
 * escape their cells.
 */
import type { Clock, Timer } from '../clock.js';
import type { Hop, TraceEvent, TraceSnapshot } from '../trace/index.js';
import { formatDuration } from '../util/duration.js';
import { escapeTerminal } from '../util/escape.js';
import { eventText, hopLine, summarise, summaryLines, treeLines } from '../view/trace-view.js';
import { renderTable } from './table.js';

export function traceEventText(e: TraceEvent): string | undefined {
  const line = rawEventText(e);
  return line === undefined ? undefined : escapeTerminal(line);
}

function rawEventText(e: TraceEvent): string | undefined {
  switch (e.type) {
    case 'trigger':
      return e.trigger.kind === 'watch'
        ? 'change seen; tracing'
        : `wrote: ${e.trigger.wrote} (resourceVersion ${e.trigger.resourceVersion ?? '?'}, generation ${e.trigger.generation ?? '?'})`;
    case 'hop':
      return hopLine(e.hop);
    case 'note':
      return `${e.level}: ${e.message}`;
    case 'event':
      return `          ↳ ${eventText(e.event)}  (${e.hopId.split('/')[0]})`;
    case 'end':
      return undefined;
  }
}

/** The reorder window beyond the coalesce window: at least this, however prompt the worker is… */
export const REORDER_MIN_LAG_MS = 100;
/** …and at most this, however far behind: the text stays live. */
export const REORDER_MAX_LAG_MS = 1_000;
/** The worker's lag is the largest receive→emit lag of this many latest hops. */
const LAG_SAMPLES = 64;

interface Held {
  /** Receive time for a hop; arrival time for a note or a late Event line. */
  key: number;
  seq: number;
  hop?: Hop | undefined;
  line?: string | undefined;
}

/**
 * Streams the text trace in time order. A hop reaches us when the worker's reconcile finds it: after
 * the coalesce window, behind other keys in the queue, or behind another informer's backlog — so not
 * always in the order our informers received the hops. The rule:
 *
 * - Each line is held until the reorder window has passed since its key (a hop's receive time; a
 *   note's or a late Event's arrival), then printed with everything else due, hops in the order the
 *   trace lists them (time order, causes first at one instant). The window is the coalesce window
 *   plus the worker's lag (the largest receive→emit lag of the latest hops), kept between
 *   REORDER_MIN_LAG_MS and REORDER_MAX_LAG_MS beyond the coalesce window, on the session's clock.
 * - A hop that arrives later still — after a hop received after it was printed — is printed at once
 *   and marked `↑ earlier: before +113ms`, the time of the first printed line it belongs before,
 *   rather than placed silently where it does not belong.
 * - An Event found for a hop still held is on that hop's line when it prints; for a printed hop it
 *   is a `↳` line of its own, as before.
 * - At the end of the trace everything held is printed, and what comes after (Events that arrive
 *   late) is printed as it comes.
 */
export class TimeOrderedTraceText {
  private held: Held[] = [];
  private readonly heldHops = new Set<string>();
  private readonly printed = new Set<Hop>();
  private lastPrinted: Hop | undefined;
  private readonly lags: number[] = [];
  private seq = 0;
  private timer: Timer | undefined;
  private timerAt = Infinity;
  private ended = false;

  constructor(
    private readonly options: {
      clock: Clock;
      coalesceMs: number;
      /** The trace's hops in its order (TraceSession.hops()). */
      hops: () => readonly Hop[];
      write: (line: string) => void;
    },
  ) {}

  /** The current reorder window (ms). */
  windowMs(): number {
    const lag = this.lags.length ? Math.max(...this.lags) - this.options.coalesceMs : 0;
    return this.options.coalesceMs + Math.min(REORDER_MAX_LAG_MS, Math.max(REORDER_MIN_LAG_MS, lag));
  }

  push(e: TraceEvent): void {
    const now = this.options.clock.now();
    switch (e.type) {
      case 'trigger':
        this.options.write(traceEventText(e)!);
        return;
      case 'hop':
        this.lags.push(now - e.hop.observedAt);
        if (this.lags.length > LAG_SAMPLES) this.lags.shift();
        if (this.ended) {
          this.print([e.hop]);
          return;
        }
        this.heldHops.add(e.hop.id);
        this.hold({ key: e.hop.observedAt, seq: this.seq++, hop: e.hop });
        return;
      case 'event':
        // The held hop's line will carry it.
        if (this.heldHops.has(e.hopId)) return;
        break;
      case 'end':
        this.ended = true;
        this.flush();
        this.close();
        return;
    }
    const line = traceEventText(e);
    if (line === undefined) return;
    if (this.ended) this.options.write(line);
    else this.hold({ key: now, seq: this.seq++, line });
  }

  /** Prints everything held now. */
  flush(): void {
    this.release(Infinity);
  }

  /** Stops the timer; what is still held is dropped (call flush() first to keep it). */
  close(): void {
    this.timer?.stop();
    this.timer = undefined;
  }

  private hold(item: Held): void {
    this.held.push(item);
    this.arm(item.key);
  }

  /** Sets the timer for the earliest held line (`earliest`, when the caller knows it). */
  private arm(earliest = this.held.reduce((m, h) => Math.min(m, h.key), Infinity)): void {
    if (this.held.length === 0) return;
    const due = earliest + this.windowMs();
    if (this.timer && due >= this.timerAt) return;
    this.timer?.stop();
    this.timerAt = due;
    this.timer = this.options.clock.setTimer(due - this.options.clock.now(), () => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.release(this.options.clock.now() - this.windowMs());
      this.arm();
    });
  }

  /** Prints, in order, what was received up to `upTo`. */
  private release(upTo: number): void {
    const due = this.held.filter((h) => h.key <= upTo);
    if (due.length === 0) return;
    this.held = this.held.filter((h) => h.key > upTo);
    const hops = due.filter((h) => h.hop).map((h) => h.hop!);
    const index = this.positions(hops);
    due.sort((a, b) => a.key - b.key || (a.hop && b.hop ? index.get(a.hop)! - index.get(b.hop)! : a.hop ? -1 : b.hop ? 1 : a.seq - b.seq));
    for (const h of due) {
      if (h.hop) this.print([h.hop]);
      else this.options.write(h.line!);
    }
  }

  private print(hops: Hop[]): void {
    for (const hop of hops) {
      this.heldHops.delete(hop.id);
      const before = this.printedAfter(hop);
      const line = escapeTerminal(hopLine(hop));
      this.options.write(before ? `${line}  ↑ earlier: before +${formatDuration(before.sinceTriggerMs)}` : line);
      this.printed.add(hop);
      if (!before) this.lastPrinted = hop;
    }
  }

  /** The first printed hop that the trace lists after `hop`, when one is: `hop` comes out of order. */
  private printedAfter(hop: Hop): Hop | undefined {
    const last = this.lastPrinted;
    if (!last) return undefined;
    const list = this.options.hops();
    const index = this.positions([hop, last]);
    const at = index.get(hop);
    if (at === undefined || at > index.get(last)!) return undefined;
    for (let i = at + 1; i < list.length; i++) if (this.printed.has(list[i]!)) return list[i];
    return undefined;
  }

  /** Where each of `hops` is in the trace's list: searched from the end, where new hops are. */
  private positions(hops: readonly Hop[]): Map<Hop, number> {
    const want = new Set(hops);
    const out = new Map<Hop, number>();
    const list = this.options.hops();
    for (let i = list.length - 1; i >= 0 && out.size < want.size; i--) if (want.has(list[i]!)) out.set(list[i]!, i);
    return out;
  }
}

export function treeText(s: TraceSnapshot): string {
  const { lines } = treeLines(s.tree);
  const now = Date.now();
  return renderTable(
    ['object', 'status', 'node', 'restarts', 'age'],
    lines.map((l) => [
      `${'  '.repeat(l.depth)}${l.label}`,
      l.status,
      l.node ?? '',
      l.restarts === undefined ? '' : l.restarts,
      l.creationTimestamp ? formatDuration(now - Date.parse(l.creationTimestamp)) : '',
    ]),
  );
}

export function traceSummaryText(s: TraceSnapshot): string {
  const sum = summarise(s, Date.now());
  const parts = [
    summaryLines(sum)
      .map((l) => escapeTerminal(l))
      .join('\n'),
    '',
    treeText(s),
    '',
  ];
  // A custom resource's trace watches every kind of its namespace: those that held and saw nothing are counted, not listed.
  const quiet = s.informers.filter(
    (i) => i.objects === 0 && i.events.ADDED + i.events.MODIFIED + i.events.DELETED === 0 && i.relists === 0 && i.watchStalls === 0 && i.backlog === 0,
  );
  const shown = quiet.length > 1 ? s.informers.filter((i) => !quiet.includes(i)) : s.informers;
  parts.push(
    renderTable(
      ['informer', 'objects', 'added', 'modified', 'deleted', 'bookmarks', 'relists', 'watch restarts', 'stalled', 'backlog'],
      shown.map((i) => [
        i.description,
        i.objects,
        i.events.ADDED,
        i.events.MODIFIED,
        i.events.DELETED,
        i.bookmarks,
        i.relists,
        i.watchRestarts,
        i.watchStalls,
        i.backlog,
      ]),
    ),
  );
  if (shown.length < s.informers.length) parts.push(`… and ${quiet.length} informers that held no object and saw no event (all of them in -o json)`);
  if (s.queue) {
    parts.push(
      '',
      renderTable(
        ['workqueue', 'depth', 'adds', 'retries', 'reconciles', 'queue p99', 'work p99'],
        [[s.queue.name, s.queue.depth, s.queue.adds, s.queue.retries, s.reconciles, fmtSec(s.queue.queueDuration.p99), fmtSec(s.queue.workDuration.p99)]],
      ),
    );
  }
  return `${parts.join('\n')}\n`;
}

function fmtSec(v: number | null): string {
  return v === null ? '-' : formatDuration(v * 1000);
}
