/**
 * src/live: everything a view reads that changes over time, so that src/view stays plain functions
 * of the data they are given. Here:
 *
 * - Models that own a clock, timers or subscriptions and keep their state: LeaseWatchModel (a
 *   LeaseObserver fed by a Lease informer, re-judging expiry on a timer), TopModel (the Leases
 *   joined with a metrics poller's snapshots, as each arrives), CacheModel (the deltas and marks of
 *   one informer), TopHistory (the series behind `top`'s sparklines).
 * - Sessions that start the informers and pollers those models read: `top`'s (the leader Leases of
 *   every namespace, the metrics sources found for them, a poller over those) and the
 *   LeaseCandidates beside Leases (lease-watch's and top's, when the API server serves them).
 * - A model hands out plain data built by src/view (`view()`, or what a view function reads) and
 *   tells its subscribers that something changed; they read it again at their own pace.
 * - Time is passed in (Clock); nothing here draws, prints or reads a key.
 */
export { CacheModel, type CacheModelOptions } from './cache-model.js';
export { watchLeaseCandidates, type CandidateWatchOptions } from './lease-candidates.js';
export { LeaseWatchModel, type LeaseWatchModelOptions } from './lease-watch-model.js';
export { TopHistory } from './top-history.js';
export { TopModel, type LeaseSource, type SnapshotSource, type TopModelOptions } from './top-model.js';
export { startTopSession, type TopSession, type TopSessionOptions } from './top-session.js';
