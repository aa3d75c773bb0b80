/** The link `accepted`: the API server holds the target, or it was never created, was refused or deleted. */
import type { KubeObject } from '../kube/index.js';
import { type Context, type LinkResult, ok } from './context.js';
import { LINKS, type Diagnosis, type LinkCheck } from './types.js';

export function checkAccepted(obj: KubeObject): LinkResult {
  return ok(
    `${obj.metadata.deletionTimestamp ? 'being deleted; ' : ''}resourceVersion ${obj.metadata.resourceVersion ?? '-'}, generation ${obj.metadata.generation ?? '-'}`,
  );
}

/** The whole diagnosis of a target the caches do not hold: broken at `accepted`, the links after it not applicable. */
export function notAccepted(ctx: Context, base: Pick<Diagnosis, 'target' | 'at'>): Diagnosis {
  const { kind, name, namespace } = ctx.input.target;
  const label = `${kind}/${name}`;
  const links: LinkCheck[] = LINKS.map((l) => ({
    link: l,
    status: l === 'accepted' ? 'broken' : l === 'spec' ? 'unknown' : 'not-applicable',
    detail: l === 'accepted' ? `${label} does not exist` : '',
  }));
  return {
    ...base,
    verdict: 'broken',
    link: 'accepted',
    summary: `${label} does not exist${namespace ? ` in namespace ${namespace}` : ''}: it was not created, or was refused or deleted`,
    evidence: [{ object: { ...ctx.input.target }, source: 'field', reason: 'NotFound', message: `no ${kind} named ${name} in the cache` }],
    next: [`kubectl get ${kind.toLowerCase()} ${name}${ctx.nsFlag()}`, `kubectl get events${ctx.nsFlag()} --field-selector involvedObject.name=${name}`],
    unseen: ctx.unseen,
    links,
  };
}
