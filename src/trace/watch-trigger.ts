/**
 * Watching for someone else's change: which version of the target is the change, and the trigger it
 * makes. The tracer's handlers tell it every version of the target they receive, so the change is
 * timed by when our informer received it, not by when a reconcile read it; the reconcile asks it
 * for the trigger (notice()).
 *
 * Contract:
 * - The change is the first version after the baseline's resourceVersion; with ignoreStatus, the
 *   first that changes more than the status (its uid, generation, deletion, labels or annotations).
 * - A target that did not exist at the baseline, or was created since the watch began: its
 *   creation is the change. A target deleted since the baseline: its deletion is.
 * - Until watch() or watchCreated(), nothing is the change (a trace whose trigger is our write).
 */
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../kube/index.js';
import type { ReconcileView } from './chain-tracker.js';
import type { TraceTrigger } from './types.js';

export class WatchTrigger {
  private watching = false;
  /** The target's resourceVersion when watching began. */
  private baselineRv: string | undefined;
  /** With ignoreStatus, the target when watching began: to tell a status-only version from a change. */
  private baseline: KubeObject | undefined;
  /** The first change our informer received: when, and its resourceVersion. */
  private firstChange: { at: number; rv: string | undefined } | undefined;

  /** Starts watching from the target as it is now (undefined while it does not exist). */
  watch(current: KubeObject | undefined, ignoreStatus: boolean): void {
    this.watching = true;
    this.baselineRv = current?.metadata.resourceVersion;
    if (ignoreStatus) this.baseline = current;
  }

  /** Starts watching a target created at `createdAt`, after the watch began: its creation is the change. */
  watchCreated(createdAt: number, current: KubeObject | undefined): void {
    this.watching = true;
    this.firstChange = { at: createdAt, rv: current?.metadata.resourceVersion };
  }

  /** A version of the target our informer received at `at` (an add, or an update that is not a resync). */
  received(obj: KubeObject, at: number): void {
    if (this.watching && !this.firstChange && this.isChange(obj)) this.firstChange = { at, rv: obj.metadata.resourceVersion };
  }

  /**
   * The trigger, once the reconcile's view shows the change (or the deletion of the target, whose
   * uid is `targetUid`); undefined until then, and when not watching.
   */
  notice(view: ReconcileView, targetUid: string | undefined): TraceTrigger | undefined {
    if (!this.watching) return undefined;
    if (view.target && this.isChange(view.target.obj)) {
      const first = this.firstChange ?? { at: view.target.observedAt, rv: view.target.obj.metadata.resourceVersion };
      return {
        kind: 'watch',
        wrote: '',
        at: first.at,
        resourceVersion: first.rv ?? view.target.obj.metadata.resourceVersion,
        generation: view.target.obj.metadata.generation,
        writes: 0,
      };
    }
    if (!view.target && targetUid) {
      const d = view.deletions.get(targetUid);
      if (d) return { kind: 'watch', wrote: '', at: d.at, writes: 0 };
    }
    return undefined;
  }

  /** Whether this version of the target is the change (see the watch trigger's `ignoreStatus`). */
  private isChange(obj: KubeObject): boolean {
    if (obj.metadata.resourceVersion === this.baselineRv) return false;
    const base = this.baseline;
    if (!base) return true;
    const same = (a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean => isDeepStrictEqual(a ?? {}, b ?? {});
    return (
      obj.metadata.uid !== base.metadata.uid ||
      obj.metadata.generation !== base.metadata.generation ||
      obj.metadata.deletionTimestamp !== base.metadata.deletionTimestamp ||
      !same(obj.metadata.labels, base.metadata.labels) ||
      !same(obj.metadata.annotations, base.metadata.annotations)
    );
  }
}
