/** The leader Lease of the controller that acts on a link: held and renewed, or why not. Pure. */
import type { Lease } from '../kube/index.js';
import { formatDuration } from '../util/duration.js';
import { type Context, num } from './context.js';
import { since } from './evidence.js';
import type { Evidence, EvidenceObject, LeaseInput } from './types.js';

export interface LeaseJudgement {
  healthy: boolean | undefined;
  evidence: Evidence | undefined;
  next: string;
}

/** Is the component's leader Lease held and renewed? undefined when it could not be read or was not given. */
export function judgeLease(ctx: Context, component: LeaseInput['component']): LeaseJudgement {
  const input = ctx.lease(component);
  const next = input ? `kubectl get lease ${input.name} -n ${input.namespace} -o yaml` : `kubectl get lease ${component} -n kube-system -o yaml`;
  if (!input?.lease.seen) return { healthy: undefined, evidence: undefined, next };
  const object: EvidenceObject = { kind: 'Lease', namespace: input.namespace, name: input.name };
  const judged = (healthy: boolean, reason: string, message: string, since?: { at: string | undefined; forMs: number | undefined }): LeaseJudgement => ({
    healthy,
    next,
    evidence: { object, source: 'lease', reason, message, ...(since ? { since: since.at, forMs: since.forMs } : {}) },
  });
  const lease: Lease | undefined = input.lease.value;
  if (!lease) return judged(false, 'NotFound', `no leader Lease: ${component} is not running with leader election, or never started`);
  const spec = lease.spec ?? {};
  const holder = spec.holderIdentity ?? '';
  const duration = num(spec.leaseDurationSeconds);
  const renew = spec.renewTime ?? undefined;
  const renewedAgo = since(renew, ctx.now);
  if (!holder) {
    return judged(false, 'Released', `no holder: ${component} released its leader Lease and no instance took it`, { at: renew, forMs: renewedAgo });
  }
  if (renewedAgo === undefined) return judged(false, 'NeverRenewed', `held by ${holder} with no renewTime`);
  const expiresAt = Date.parse(renew!) + duration * 1000;
  if (expiresAt < ctx.now) {
    return judged(
      false,
      'Expired',
      `held by ${holder}, last renewed ${formatDuration(renewedAgo)} ago with leaseDurationSeconds ${duration}: expired ${formatDuration(ctx.now - expiresAt)} ago; ${component} is not running or cannot reach the API server`,
      { at: new Date(expiresAt).toISOString(), forMs: ctx.now - expiresAt },
    );
  }
  return judged(true, 'Renewed', `held by ${holder}, renewed ${formatDuration(renewedAgo)} ago (leaseDurationSeconds ${duration})`, {
    at: renew,
    forMs: renewedAgo,
  });
}

/** How a link names a Lease that is not healthy: `expired`, `missing`, `not held`. */
export function leaseState(lease: LeaseJudgement): string {
  return lease.evidence!.reason === 'Expired' ? 'expired' : lease.evidence!.reason === 'NotFound' ? 'missing' : 'not held';
}
