/**
 * The figures every screen reads over all the hops: where the chain ended, the
 * width of the object column and the hops' ids. A 1,000-replica rollout has thousands of hops and
 * the TUI draws ten frames a second; a pass over them touches every hop and its object, scattered
 * through a large heap, and cost more than a tenth of a frame. So the chain tracker keeps the
 * figures up to date as it places each hop (KeptHopFigures); `hopFiguresOf` is the pass itself,
 * for a list nobody keeps figures for (the hops a filter left) and as the definition the kept
 * figures must always equal.
 */
import type { Hop, HopFigures } from './types.js';

export function hopFiguresOf(hops: readonly Hop[]): HopFigures {
  const end = hops.find(ends);
  let longestObject = 0;
  const ids = new Array<string>(hops.length);
  for (let i = 0; i < hops.length; i++) {
    const h = hops[i]!;
    ids[i] = h.id;
    longestObject = Math.max(longestObject, objectWidth(h));
  }
  return { end, longestObject, ids };
}

/**
 * The figures of one hop list, kept as hops are placed in it: only the placed hop is looked at.
 * figures() returns the same object until the next placed().
 */
export class KeptHopFigures {
  private readonly ids: string[] = [];
  private longestObject = 0;
  private end: Hop | undefined;
  private endAt = -1;
  private current: HopFigures | undefined;

  /** `hops[at]` was just inserted. */
  placed(hops: readonly Hop[], at: number): void {
    const hop = hops[at]!;
    this.current = undefined;
    this.ids.splice(at, 0, hop.id);
    this.longestObject = Math.max(this.longestObject, objectWidth(hop));
    if (this.endAt >= at) this.endAt++;
    if (ends(hop) && (this.end === undefined || at < this.endAt)) {
      this.end = hop;
      this.endAt = at;
    }
  }

  figures(): HopFigures {
    this.current ??= { end: this.end, longestObject: this.longestObject, ids: this.ids.slice() };
    return this.current;
  }
}

function ends(h: Hop): boolean {
  return h.kind === 'converged' || h.kind === 'failed';
}

function objectWidth(h: Hop): number {
  return h.object.kind.length + 1 + h.object.name.length;
}
