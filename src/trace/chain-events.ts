/**
 * The Events a trace attaches to its hops: the namespace's events.k8s.io/v1 Events as an
 * EventsReader delivers them, each handed to the chain tracker to find the hop it explains.
 *
 * Contract:
 * - Nothing is read before the trigger: there is nothing to explain yet. What came meanwhile is read
 *   once it is set.
 * - That the Events bounds cut some is said once, when they first cut: a flood of Events would
 *   otherwise be a flood of notes. What they cut in all is the reader's cutTotal() (the snapshot's
 *   eventsNotRead, and the summary).
 */
import type { Clock } from '../clock.js';
import type { ChainTracker } from './chain-tracker.js';
import type { EventsReader } from './events-reader.js';
import type { TraceEvent, TraceTrigger } from './types.js';

export interface ChainEventsOptions {
  clock: Clock;
  tracker: Pick<ChainTracker, 'addEvent'>;
  /** Where each attached Event and the note of a cut go. */
  emit: (e: TraceEvent) => void;
}

export class ChainEvents {
  private saidCut = false;

  constructor(
    readonly reader: EventsReader,
    private readonly options: ChainEventsOptions,
  ) {}

  /** Reads the Events delivered since the last read into the hops they explain, once `trigger` is set. */
  read(trigger: TraceTrigger | undefined): void {
    if (!trigger) return;
    const { tracker, emit, clock } = this.options;
    for (const { regardingUid, event } of this.reader.readNew(trigger.at)) {
      const hopId = tracker.addEvent(regardingUid, event);
      if (hopId) emit({ type: 'event', hopId, event });
    }
    const cut = this.reader.takeCutNote();
    if (cut && !this.saidCut) {
      this.saidCut = true;
      emit({ type: 'note', at: clock.now(), level: 'info', message: `${cut}; later ones are counted, not said (the total is in the summary)` });
    }
  }
}
