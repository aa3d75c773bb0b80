/**
 * src/live: what starts the informers and pollers a live view reads — `top`'s session (the leader
 * Leases of every namespace, the metrics sources found for them, a poller over those) and the
 * LeaseCandidates beside Leases (lease-watch's and top's, when the API server serves them) — so that
 * src/view stays plain view models that read only what they are given. Used by commands/top.ts and
 * check/controller.ts.
 */
export { startTopSession, type TopSession, type TopSessionOptions } from './top-session.js';
export { watchLeaseCandidates, type CandidateWatchOptions } from './lease-candidates.js';
