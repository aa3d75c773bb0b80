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
 */
import { diagnosisBrief, diagnoseSetMembers } from '../diagnose/index.js';
import { ExitCode } from '../exit-codes.js';
import type { Kube } from '../kube/index.js';
import { DEFAULT_COALESCE_MS } from '../trace/tracer.js';
import { memberLabel, memberStatus, SetSession, type SetMember } from '../trace/set-session.js';
import { formatDuration } from '../util/duration.js';
import type { RunContext } from './context.js';
import { checked, unchecked, unmeasured, type CheckResult, type SetCheckSpec } from './types.js';

/** The result name of one object of a set: `deployment.apps/web ready`. */
export const setResultName = (object: string): string => `${object} ready`;

export async function runSetCheck(kube: Kube, spec: SetCheckSpec, ctx: RunContext): Promise<CheckResult[]> {
  const limit = spec.maxConvergeMs ?? spec.timeoutMs;
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
    watch: false,
    signal: ctx.signal,
    clock: ctx.clock,
  });
  set.subscribe((e) => {
    if (e.type === 'applied') ctx.log(`${memberLabel(e.member)} ${e.member.applied ?? 'applied'}`);
    else if (e.type === 'refused') ctx.log(`${memberLabel(e.member)} refused: ${e.member.message ?? ''}`);
  });
  try {
    await set.run();
    const diagnoses = await diagnoseSetMembers(kube, ctx.readiness, set.members, ctx.log);
    return set.members.map((m) => memberResult(m, limit, spec.maxConvergeMs !== undefined, diagnoses.get(m) && diagnosisBrief(diagnoses.get(m)!)));
  } finally {
    set.close();
  }
}

function memberResult(m: SetMember, limit: number, isLimit: boolean, brief: string | undefined): CheckResult {
  const name = setResultName(memberLabel(m));
  const words = isLimit ? `the ${formatDuration(limit)} limit` : `the ${formatDuration(limit)} timeout`;
  const detail = m.verdict ? ` (${m.verdict.rule}: ${m.verdict.detail})` : '';
  const why = brief ? `; ${brief}` : '';
  switch (m.state) {
    case 'ready': {
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
      return unchecked(name, limit, 'ms', `interrupted before it was ${m.state === 'pending' ? 'applied' : 'ready'}`, ExitCode.Interrupted);
  }
}
