/**
 * tools/readiness: measuring the readiness engine (bench/readiness.mjs, src/readiness/corpus.test.ts).
 * - The corpus: the library's examples and objects captured from real runs, each with the status
 *   it is expected to have, and how a judge's answers agree with them.
 * - kstatus beside it: sigs.k8s.io/cli-utils' verdicts through a Go fixture built on first use.
 */
export { agreement, readinessCorpus, type Agreement, type CorpusEntry } from './corpus.js';
export { kstatusOf, type KstatusResult } from './kstatus.js';
