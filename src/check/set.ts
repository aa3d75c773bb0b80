/**
 * Set checks: `check --apply -f DIR` applies every object of a folder, a chart's rendered output or
 * a multi-document file (trace/set-session.ts) and holds each one's time to readiness to the
 * limit: one result per object, so one JUnit test case and one step-summary row each.
 *
 * - An object is ready when the readiness engine says Current; one without readiness (a
 *   ConfigMap, RBAC) passes once applied. Its time runs from its own write.
 * - The deadline is --max-converge when given, else --timeout.
 * - An object that failed, was refused, or was not ready in time fails, with the diagnosis of its
 *   chain (the first broken link and its evidence).
 * - `check --watch` (-f, or -l SELECTOR) writes nothing: the next change someone else makes is
 *   checked, each object's time from its change (or creation) to its readiness. One the change
 *   left alone passes when it is ready as it stands; when no change comes before the deadline,
 *   every object fails saying so, and a selector that found nothing fails as one result.
 */
import { diagnosisBrief, diagnoseSetMembers } from '../diagnose/index.js';
import { ExitCode } from '../exit-codes.js';
import type { Kube } from '../kube/index.js';
import { DEFAULT_COALESCE_MS, memberLabel, memberStatus, selection, type SetMember, SetSession, watchingText } from '../trace/index.js';
import { formatDuration } from '../util/duration.js';
import type { RunContext } from './context.js';
import { checked, unchecked, unmeasured, type CheckResult, type SetCheckSpec } from './types.js';

/** The result name of one object of a set: `deployment.apps/web ready`. */
export const setResultName = (object: string): string => `${object} ready`;

export async function runSetCheck(kube: Kube, spec: SetCheckSpec, ctx: RunContext): Promise<CheckResult[]> {
  const limit = spec.maxConvergeMs ?? spec.timeoutMs;
  const select = spec.select && (await selection(kube, spec.select.labelSelector, spec.select.kinds));
  const set = new SetSession({
    kube,
    readiness: ctx.readiness,
    inputs: spec.objects,
    defaultNamespace: spec.namespace ?? kube.connection.namespace,
    timeoutMs: limit,
    syncTimeoutMs: ctx.syncTimeoutMs,
    coalesceMs: DEFAULT_COALESCE_MS,
    settleMs: 3_000,
    failFast: false,
    watch: spec.watch === true,
    select,
    signal: ctx.signal,
    clock: ctx.clock,
  });
  set.subscribe((e) => {
    if (e.type === 'applied') ctx.log(`${memberLabel(e.member)} ${e.member.applied ?? 'applied'}`);
    else if (e.type === 'watching') ctx.log(`${watchingText(set.members.length, select, spec.namespace ?? kube.connection.namespace)} for a change`);
    else if (e.type === 'changed') ctx.log(`${memberLabel(e.member)} ${e.member.applied === 'created' ? 'created' : 'changed'}`);
    else if (e.type === 'refused') ctx.log(`${memberLabel(e.member)} refused: ${e.member.message ?? ''}`);
  });
  try {
    await set.run();
    const diagnoses = await diagnoseSetMembers(kube, ctx.readiness, set.members, ctx.log);
    // A selector that found nothing, and saw nothing created, checked nothing: that fails, as `kubectl wait -l` does.
    if (set.members.length === 0 && spec.select)
      return [unmeasured(setResultName(`-l ${spec.select.labelSelector}`), limit, 'ms', 'no object was selected, and none was created before the timeout')];
    const interrupted = ctx.signal.aborted;
    return set.members.map((m) => memberResult(m, limit, spec.maxConvergeMs !== undefined, interrupted, diagnoses.get(m) && diagnosisBrief(diagnoses.get(m)!)));
  } finally {
    set.close();
  }
}

function memberResult(m: SetMember, limit: number, isLimit: boolean, interrupted: boolean, brief: string | undefined): CheckResult {
  const name = setResultName(memberLabel(m));
  const words = isLimit ? `the ${formatDuration(limit)} limit` : `the ${formatDuration(limit)} timeout`;
  const detail = m.verdict ? ` (${m.verdict.rule}: ${m.verdict.detail})` : '';
  const why = brief ? `; ${brief}` : '';
  switch (m.state) {
    case 'ready': {
      // Watched, and left alone by the change: ready as it stands, with no time to hold to the limit.
      if (m.appliedAt === undefined) return checked(name, null, limit, 'ms', true, `unchanged; ready as it stands${detail}`);
      const ms = m.readyAt !== undefined && m.appliedAt !== undefined ? Math.max(0, m.readyAt - m.appliedAt) : null;
      const passed = ms !== null && ms <= limit;
      return checked(
        name,
        ms,
        limit,
        'ms',
        passed,
        `${m.applied ?? 'applied'}; ready in ${ms === null ? 'an unknown time' : formatDuration(ms)}${passed ? '' : `, over ${words}`}${detail}`,
      );
    }
    case 'no-readiness':
      return checked(name, null, limit, 'ms', true, `${m.applied ?? 'applied'}; a ${m.kind} has no readiness to wait for`);
    case 'failed':
      return unmeasured(name, limit, 'ms', `${memberStatus(m)}${detail}${m.message ? `: ${m.message}` : ''}${why}`);
    case 'refused':
      return unmeasured(name, limit, 'ms', `refused by the server: ${m.message ?? ''}`);
    case 'not-ready':
    case 'applied':
      return unmeasured(name, limit, 'ms', `not ready within ${words}${detail}${why}`);
    case 'stopped':
    case 'pending':
      // Watched and never changed: the change the check waits for did not come.
      if (!interrupted && m.message) return unmeasured(name, limit, 'ms', m.message);
      return unchecked(name, limit, 'ms', `interrupted before it was ${m.state === 'pending' ? 'applied' : 'ready'}`, ExitCode.Interrupted);
  }
}
