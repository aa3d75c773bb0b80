/** The link `spec`: is the spec what was meant, or does a field of it hold the controller back (paused, suspended)? */
import type { KubeObject } from '../kube/index.js';
import { type Context, lastSpecChange, type LinkResult, ok } from './context.js';
import { refOf, since } from './evidence.js';
import { knowledgeOf } from './kinds.js';

export function checkSpec(ctx: Context, kind: string, obj: KubeObject, converged: boolean): LinkResult {
  const spec = (obj.spec ?? {}) as Record<string, unknown>;
  const hold = knowledgeOf(kind, obj)?.hold;
  if (hold && spec[hold.field] === true && !converged) {
    return {
      status: 'broken',
      detail: hold.detail,
      evidence: [
        {
          object: refOf(kind, obj),
          source: 'field',
          type: `spec.${hold.field}`,
          reason: hold.reason,
          message: `spec.${hold.field} is true`,
          since: lastSpecChange(obj),
          forMs: since(lastSpecChange(obj), ctx.now),
        },
      ],
      next: [hold.lift(obj.metadata.name ?? '', ctx.nsFlag())],
    };
  }
  if (typeof spec.replicas === 'number' && spec.replicas === 0) return ok('spec.replicas is 0: nothing to run');
  return ok(`generation ${obj.metadata.generation ?? '-'}`);
}
