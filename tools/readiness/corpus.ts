/**
 * The readiness corpus: real status objects, each with the status it is expected to have. Two
 * parts, kept apart because they prove different things:
 * - `library`: every example of every rule of the library (src/readiness/library/*.examples.yaml),
 *   written from the operators' own API types; the library's test holds the engine to them, so
 *   they measure kstatus (and any other judge) more than the engine;
 * - `captured`: objects captured from a real run of the local control plane and the operators the
 *   end-to-end tests run (test/fixtures/readiness-corpus/*.yaml), in the states the run drove
 *   them into; the engine met them only after it was written.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { KubeObject } from '../../src/kube/index.js';
import type { ReadinessStatus } from '../../src/readiness/index.js';
import { repoRoot } from '../root.js';

export interface CorpusEntry {
  expected: ReadinessStatus;
  why: string;
  object: KubeObject;
  /** `library/cert-manager.io` or `captured/captured`: the file it came from. */
  origin: string;
}

function entriesOf(dir: string, suffix: string, prefix: string): CorpusEntry[] {
  if (!existsSync(dir)) return [];
  const out: CorpusEntry[] = [];
  for (const name of readdirSync(dir)
    .filter((n) => n.endsWith(suffix))
    .sort()) {
    const list = parse(readFileSync(join(dir, name), 'utf8')) as { status: ReadinessStatus; why: string; object: KubeObject }[];
    for (const e of list) out.push({ expected: e.status, why: e.why, object: e.object, origin: `${prefix}/${name.slice(0, -suffix.length)}` });
  }
  return out;
}

export function readinessCorpus(): { library: CorpusEntry[]; captured: CorpusEntry[] } {
  return {
    library: entriesOf(join(repoRoot, 'src', 'readiness', 'library'), '.examples.yaml', 'library'),
    captured: entriesOf(join(repoRoot, 'test', 'fixtures', 'readiness-corpus'), '.yaml', 'captured'),
  };
}

/** How a judge's statuses agree with the expected ones. */
export interface Agreement {
  objects: number;
  /** Current-or-not agrees with the expected status. */
  currentAgree: number;
  /** Failed-or-not agrees. */
  failedAgree: number;
  /** Expected Failed (its own status says failing, aborted, degraded), judged Current. */
  failedCalledCurrent: number;
  /** Expected InProgress or Suspended, judged Current. */
  pendingCalledCurrent: number;
  pending: number;
  /** Expected Current, judged otherwise. */
  currentMissed: number;
}

export function agreement(entries: readonly CorpusEntry[], judged: readonly string[]): Agreement {
  const a: Agreement = {
    objects: entries.length,
    currentAgree: 0,
    failedAgree: 0,
    failedCalledCurrent: 0,
    pendingCalledCurrent: 0,
    pending: 0,
    currentMissed: 0,
  };
  entries.forEach((e, i) => {
    const got = judged[i];
    if ((e.expected === 'Current') === (got === 'Current')) a.currentAgree++;
    if ((e.expected === 'Failed') === (got === 'Failed')) a.failedAgree++;
    if (e.expected === 'Failed' && got === 'Current') a.failedCalledCurrent++;
    if (e.expected === 'InProgress' || e.expected === 'Suspended') {
      a.pending++;
      if (got === 'Current') a.pendingCalledCurrent++;
    }
    if (e.expected === 'Current' && got !== 'Current') a.currentMissed++;
  });
  return a;
}
