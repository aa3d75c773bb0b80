/**
 * Where each object of a set (trace/set-session.ts) that failed or was not ready in time is
 * stuck: the diagnosis of its chain from its own trace's caches, all at once. A failure to
 * diagnose one is said on the log and leaves the others be.
 */
import type { Kube } from '../kube/index.js';
import type { Readiness } from '../readiness/index.js';
import { memberLabel, type SetMember } from '../trace/index.js';
import { diagnoseChain } from './chain.js';
import { DEFAULT_GRACE_MS } from './diagnose.js';
import type { Diagnosis } from './types.js';

/** How long the diagnoses of a set may take at its end. */
const SET_DIAGNOSIS_MS = 10_000;

/** Where one traced object of a set is stuck: its chain's diagnosis from its own trace's caches. */
export function diagnoseSetMember(kube: Kube, readiness: Readiness, m: SetMember, signal?: AbortSignal): Promise<Diagnosis> {
  const target = { info: m.info!, namespace: m.namespace, name: m.name };
  return diagnoseChain(kube, m.session!.caches(), target, { graceMs: DEFAULT_GRACE_MS, readiness, ...(signal ? { signal } : {}) });
}

export async function diagnoseSetMembers(
  kube: Kube,
  readiness: Readiness,
  members: readonly SetMember[],
  log: (line: string) => void,
): Promise<Map<SetMember, Diagnosis>> {
  const out = new Map<SetMember, Diagnosis>();
  const signal = AbortSignal.timeout(SET_DIAGNOSIS_MS);
  await Promise.all(
    members
      .filter((m) => m.session && m.info && (m.state === 'failed' || m.state === 'not-ready'))
      .map(async (m) => {
        try {
          out.set(m, await diagnoseSetMember(kube, readiness, m, signal));
        } catch (err) {
          log(`warning: no diagnosis of ${memberLabel(m)}: ${(err as Error).message}`);
        }
      }),
  );
  return out;
}
