/**
 * Before a trace says its target converged (or failed), its chain's informers must have caught up
 * with the server: the target's status can arrive on one watch while another informer's watch is
 * silently dead (its connection half-open, not noticed yet: that takes up to 60 s, see
 * docs/design/dead-connections.md). Ending then would leave out the hops that informer has not
 * received — a ReplicaSet's scale, the new Pods — and show a converged target with no rollout
 * under it.
 *
 * Contract:
 * - check() starts, once, one consistent List per child informer (through its own ListerWatcher),
 *   at most LIST_CONCURRENCY at a time, and answers false until every informer has caught up with
 *   its List (caughtUpWith: everything up to the List's resourceVersion applied and handed to the
 *   trace's handlers). The Lists are made once; later checks compare in memory.
 * - A List that fails is tried again after RETRY_MS; the trace goes on meanwhile.
 * - While an informer is behind, `recheck` is called every POLL_MS (its stalled watch is replaced
 *   within 60 s, and the events it then replays are the missing hops); once it has been behind for
 *   NOTE_AFTER_MS since the Lists came back (not the few milliseconds a healthy watch lags a List),
 *   a note names the informers behind, once.
 * - behind() names the informers not caught up yet, for the message of a trace that ends first.
 * - The Events informer is not waited for: Events are attached as they come, late ones too.
 */
import type { Clock, Timer } from '../clock.js';
import { caughtUpWith, errorMessage, listNow, type ServerState, type SharedIndexInformer } from '../informer/index.js';
import type { ChildInformer } from './chain-informers.js';

export const LIST_CONCURRENCY = 4;
const POLL_MS = 1_000;
const NOTE_AFTER_MS = 2_000;
const RETRY_MS = 2_000;

export interface ChainCurrencyOptions {
  clock: Clock;
  signal: AbortSignal;
  /** Something changed (a List came back, or time passed while an informer is behind): check again. */
  recheck: () => void;
  /** One line for the trace's notes. */
  note: (level: 'info' | 'warning', message: string) => void;
  /**
   * A consistent List of an informer's collection started at `since` or later: listNow unless the
   * informers are shared with other traces, whose Lists are shared too (InformerPool.serverState).
   */
  list?: (informer: SharedIndexInformer, since: number) => Promise<ServerState>;
}

interface Entry {
  child: ChildInformer;
  server: ServerState | undefined;
}

export class ChainCurrency {
  private entries: Entry[] | undefined;
  private timer: Timer | undefined;
  private saidBehind = false;
  /** When the last List came back. */
  private listedAt: number | undefined;
  private saidFailure = false;
  private closed = false;
  /** When check() was first asked: the Lists must be made from then on. */
  private since = 0;

  constructor(
    private readonly children: () => ChildInformer[],
    private readonly options: ChainCurrencyOptions,
  ) {}

  /** Whether every child informer has caught up with the server (see the module comment); starts the Lists the first time. */
  check(): boolean {
    if (!this.entries) {
      this.since = this.options.clock.now();
      this.entries = this.children().map((child) => ({ child, server: undefined }));
      void this.listAll(this.entries);
      return this.entries.length === 0;
    }
    const behind = this.behind();
    if (behind.length === 0) {
      this.stopTimer();
      return true;
    }
    const listedAt = this.listedAt;
    if (listedAt !== undefined && this.options.clock.now() - listedAt >= NOTE_AFTER_MS && !this.saidBehind) {
      this.saidBehind = true;
      this.options.note(
        'warning',
        `waiting for ${behind.join(', ')} to catch up with the server before ending: ${behind.length === 1 ? 'its cache is' : 'their caches are'} behind (a watch whose connection went silent is replaced within 60s)`,
      );
    }
    this.arm(POLL_MS);
    return false;
  }

  /** The informers (by what they watch) that have not caught up, or whose List has not come back. */
  behind(): string[] {
    return (this.entries ?? [])
      .filter((e) => !e.server || !caughtUpWith(e.child.informer, e.server))
      .map((e) => e.child.informer.getListerWatcher().description);
  }

  close(): void {
    this.closed = true;
    this.stopTimer();
  }

  private async listAll(entries: Entry[]): Promise<void> {
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let i = next++; i < entries.length; i = next++) await this.listOne(entries[i]!);
    };
    await Promise.all(Array.from({ length: Math.min(LIST_CONCURRENCY, entries.length) }, worker));
    this.listedAt = this.options.clock.now();
    if (!this.closed) this.options.recheck();
  }

  private async listOne(entry: Entry): Promise<void> {
    const { signal, clock } = this.options;
    while (!this.closed && !signal.aborted) {
      try {
        entry.server = this.options.list ? await this.options.list(entry.child.informer, this.since) : await listNow(entry.child.informer, { signal });
        return;
      } catch (err) {
        if (signal.aborted || this.closed) return;
        if (!this.saidFailure) {
          this.saidFailure = true;
          this.options.note(
            'warning',
            `cannot confirm that ${entry.child.informer.getListerWatcher().description} caught up: ${errorMessage(err)}; trying again`,
          );
        }
        await clock.sleep(RETRY_MS, signal).catch(() => undefined);
      }
    }
  }

  private arm(ms: number): void {
    if (this.timer || this.closed) return;
    this.timer = this.options.clock.setTimer(ms, () => {
      this.timer = undefined;
      if (!this.closed) this.options.recheck();
    });
  }

  private stopTimer(): void {
    this.timer?.stop();
    this.timer = undefined;
  }
}
