/**
 * The rules for a kind that no rule names: what its status says, read the ways widely used
 * operators write it (docs/readiness.md, "Any other kind", numbers each rule). The first that
 * applies decides. Above all, an object whose status says it is failing, aborted, degraded or not
 * ready is never Current, whatever other condition is True: the failures are read before any
 * positive condition, and one positive condition that is not True holds the rest.
 */
import type { KubeObject } from '../kube/index.js';
import { type Condition, conditionsOf, generationOf, managedFieldsTime, nestedConditionsOf, phaseOf, saidOf, statusWordsOf } from './status-fields.js';
import type { ReadinessStatus, Verdict } from './types.js';

/** Condition types that say "good" when True: these words, alone or ending a longer type (`HeadPodReady`, `RayClusterProvisioned`). */
const POSITIVE_WORDS = [
  'Ready',
  'Available',
  'Healthy',
  'Synced',
  'Succeeded',
  'Established',
  'Complete',
  'Completed',
  'Provisioned',
  'Bound',
  'Running',
  'Accepted',
  'Programmed',
  'ResolvedRefs',
  'Installed',
  'Reconciled',
  'Admitted',
];
const POSITIVE_TYPE = new RegExp(`(^|[a-z0-9])(${POSITIVE_WORDS.join('|')})$`);
/** Condition types that are abnormal when True (kstatus' "abnormal-true" polarity): never a sign of readiness. */
const NEGATIVE_TYPE = /(Stalled|Reconciling|Progressing|Degraded|Failed|Failure|Error|Suspended|Suspending|Paused|Terminating|Pending|Not[A-Z]\w*|Un[a-z]\w*)$/;
/** Abnormal-true types that say the object failed, not that it is busy. */
const FAILURE_TYPE = /(^|[a-z0-9])(Stalled|Degraded|Failed|Failure|Error|Errored)$/;
/** Types that say it is paused or suspended when True. */
const SUSPENDED_TYPE = /(^|[a-z0-9])(Paused|Suspended)$/;
/** Reasons of a positive condition that is not True which say it failed rather than that it is on its way. */
const FAILURE_REASON =
  /(Fail(ed|ure)?|Error|Invalid|Terminal|Abort(ed)?|Degraded|Time(d)?[Oo]ut|Timeout|BackOff|Backoff|Denied|Rejected|Unsupported|Conflict(s|ed)?|Exceeded|Refused|Unschedulable|NotAllowed(ByListeners)?|NoMatchingParent|Crash\w*)$/;

/** Phase and state words (lower case, without spaces, dashes or underscores) that say the object is what it should be. */
const CURRENT_PHASES = new Set([
  'ready',
  'healthy',
  'running',
  'succeeded',
  'successful',
  'success',
  'complete',
  'completed',
  'active',
  'bound',
  'available',
  'established',
  'synced',
  'current',
  'exists',
  'deployed',
  'provisioned',
  'online',
  'clusterrunning',
  'reconciled',
  'enabled',
  'ok',
  'up',
]);
/** Phase and state endings that say it failed. */
const FAILED_PHASE = /(failed|failure|error|errored|invalid|aborted|degraded|timeout|timedout|backoff|unhealthy|rejected|denied|crashed)$/;
const FAILED_PHASES = new Set(['failing', 'lost', 'broken', 'terminal']);
const SUSPENDED_PHASES = new Set(['paused', 'suspended']);

function normal(word: string): string {
  return word.toLowerCase().replace(/[\s_-]/g, '');
}

export function isPositiveCondition(type: string): boolean {
  return POSITIVE_TYPE.test(type) && !NEGATIVE_TYPE.test(type);
}

/**
 * What a status says, in a few words, for a rule whose own verdict does not (a CEL rule's): the
 * condition that matters most — Ready; else one that says failure, suspension or not yet; else the
 * positive condition that changed last — then the phase or state and the status's message.
 */
export function summarize(obj: KubeObject): { text: string; condition: Condition | undefined } {
  const conds = conditionsOf(obj);
  const positive = conds.filter((c) => isPositiveCondition(c.type));
  const latest = positive.reduce<Condition | undefined>((a, b) => (!a || (b.lastTransitionTime ?? '') > (a.lastTransitionTime ?? '') ? b : a), undefined);
  const c =
    conds.find((x) => x.type === 'Ready') ??
    conds.find((x) => x.status === 'True' && (FAILURE_TYPE.test(x.type) || SUSPENDED_TYPE.test(x.type))) ??
    positive.find((x) => x.status !== 'True') ??
    latest;
  const nested = c ? undefined : nestedConditionsOf(obj).find((x) => x.condition.status !== 'True');
  const message = (obj.status as { message?: unknown } | undefined)?.message;
  const parts = [
    c ? saidOf(c) : nested ? `${nested.where} ${saidOf(nested.condition)}` : undefined,
    ...statusWordsOf(obj).map((w) => `${w.field} ${w.value}`),
    typeof message === 'string' && message ? message : undefined,
  ];
  return { text: parts.filter((x) => x !== undefined).join('; '), condition: c ?? nested?.condition };
}

/** What a phase or state word says: Current, Failed, Suspended, or InProgress for any other word. */
export function phaseStatus(value: string): ReadinessStatus {
  const w = normal(value);
  if (FAILED_PHASES.has(w) || FAILED_PHASE.test(w)) return 'Failed';
  if (SUSPENDED_PHASES.has(w)) return 'Suspended';
  if (CURRENT_PHASES.has(w)) return 'Current';
  return 'InProgress';
}

type Generic = Omit<Verdict, 'layer'>;

/** The generic rules' verdict on an object of a kind no rule names. */
export function genericVerdict(obj: KubeObject): Generic {
  const gen = generationOf(obj.metadata?.generation) ?? 0;
  const s = (obj.status ?? {}) as Record<string, unknown>;
  const spec = (obj.spec ?? {}) as Record<string, unknown>;
  const byStatus = { serverTime: managedFieldsTime(obj, { subresource: 'status' }), serverTimeSource: 'managedFields (status)' };
  const decided = (status: ReadinessStatus, rule: string, detail: string, extra: Partial<Generic> = {}): Generic => ({
    status,
    rule,
    detail,
    ...byStatus,
    ...extra,
  });
  const fromCondition = (c: Condition): Partial<Generic> => ({ serverTime: c.lastTransitionTime, serverTimeSource: `${c.type} lastTransitionTime` });

  // 1–2. Suspended by its spec: nothing will happen until someone (a user, a step's timer) resumes it.
  if (spec.suspend === true) return decided('Suspended', 'spec.suspend', 'spec.suspend is true');
  if (spec.paused === true) return decided('Suspended', 'spec.paused', 'spec.paused is true');
  // 3–5. Not observed: no status yet, or one of an older generation.
  if (Object.keys(s).length === 0) return decided('InProgress', 'not observed', 'no controller has written its status yet');
  const observed = generationOf(s.observedGeneration);
  if (observed !== undefined && observed < gen) return decided('InProgress', 'not observed', `observedGeneration ${observed} < generation ${gen}`);
  const own = conditionsOf(obj);
  const stale = own.find((c) => {
    const g = generationOf(c.observedGeneration);
    return g !== undefined && g < gen;
  });
  if (stale) return decided('InProgress', 'not observed', `condition ${stale.type} is of generation ${String(stale.observedGeneration)} < ${gen}`);
  const nested = nestedConditionsOf(obj);
  const all: { where: string; condition: Condition }[] = [...own.map((condition) => ({ where: '', condition })), ...nested];
  const name = (x: { where: string; condition: Condition }): string => `${x.where ? `${x.where} ` : ''}${x.condition.type}`;
  const told = (x: { where: string; condition: Condition }): string => `${x.where ? `${x.where} ` : ''}${saidOf(x.condition)}`;
  const phase = phaseOf(obj);
  const phaseSays = phase ? phaseStatus(phase.value) : undefined;

  // 6. Suspended by its status: a Paused or Suspended condition, or phase.
  const paused = all.find((x) => x.condition.status === 'True' && SUSPENDED_TYPE.test(x.condition.type));
  if (paused) return decided('Suspended', `${name(paused)} condition`, told(paused), fromCondition(paused.condition));
  if (phase && phaseSays === 'Suspended') return decided('Suspended', `status.${phase.field}`, `${phase.field} ${phase.value}`);

  // 7. Failed: a failure condition True (Stalled, Degraded, Failed …).
  const failure = all.find((x) => x.condition.status === 'True' && FAILURE_TYPE.test(x.condition.type));
  if (failure) return decided('Failed', `${name(failure)} condition`, told(failure), fromCondition(failure.condition));
  // 8. Reconciling=True: its controller is at work, and says so (kstatus' convention), even while
  // a condition carries the error it retries after; a failure it gives up on is Stalled (rule 7).
  const reconciling = own.find((c) => c.type === 'Reconciling' && c.status === 'True');
  if (reconciling) return decided('InProgress', 'Reconciling condition', saidOf(reconciling), fromCondition(reconciling));
  // 9–10. Failed: a positive condition False for a reason that says failure, a phase or state that says so.
  const positive = all.filter((x) => isPositiveCondition(x.condition.type));
  const refused = positive.find((x) => x.condition.status === 'False' && FAILURE_REASON.test(x.condition.reason ?? ''));
  if (refused) return decided('Failed', `${name(refused)} condition`, told(refused), fromCondition(refused.condition));
  if (phase && phaseSays === 'Failed') return decided('Failed', `status.${phase.field}`, `${phase.field} ${phase.value}`);

  // 11. A positive condition that is not True holds the rest, Ready first.
  const ready = positive.find((x) => x.where === '' && x.condition.type === 'Ready');
  const notYet = ready && ready.condition.status !== 'True' ? ready : positive.find((x) => x.condition.status !== 'True');
  if (notYet) return decided('InProgress', `${name(notYet)} condition`, told(notYet), fromCondition(notYet.condition));
  // 12. A phase or state that says it is on its way.
  if (phase && phaseSays === 'InProgress') return decided('InProgress', `status.${phase.field}`, `${phase.field} ${phase.value}`);
  // 13. Ready=True, and nothing above says otherwise.
  if (ready) return decided('Current', 'Ready condition', told(ready), fromCondition(ready.condition));
  // 14. A phase or state that says it is ready.
  if (phase) return decided('Current', `status.${phase.field}`, `${phase.field} ${phase.value}`);
  // 15. Positive conditions, all True, none of them Ready: the status says its parts are up, and the
  // objects it owns decide.
  if (positive.length > 0) {
    const last = positive.reduce((a, b) => ((b.condition.lastTransitionTime ?? '') > (a.condition.lastTransitionTime ?? '') ? b : a));
    return decided('Current', 'conditions', positive.map(told).join(', '), { ...fromCondition(last.condition), childrenDecide: true });
  }
  // 16. Only an observedGeneration that caught up: its controller saw the change and says nothing
  // more. Unknown alone; in a chain, the objects it owns decide.
  if (observed !== undefined)
    return decided('Unknown', 'observedGeneration', `observedGeneration ${observed} / generation ${gen}, and the status says nothing more`, {
      childrenDecide: true,
    });
  return decided('Unknown', 'unknown', 'readiness unknown: its status has no observedGeneration, no condition and no phase the rules read');
}
