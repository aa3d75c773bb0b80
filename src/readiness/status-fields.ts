/** Reading the parts of an object's status that every rule reads: conditions, generations, phases, the server's times. */
import type { KubeObject } from '../kube/index.js';

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastUpdateTime?: string;
  observedGeneration?: unknown;
}

function isCondition(c: unknown): c is Condition {
  return typeof c === 'object' && c !== null && typeof (c as Condition).type === 'string';
}

/** `status.conditions`, the well-formed entries only. */
export function conditionsOf(obj: KubeObject): Condition[] {
  const list = (obj.status as { conditions?: unknown } | undefined)?.conditions;
  return Array.isArray(list) ? list.filter(isCondition) : [];
}

export function conditionOf(obj: KubeObject, type: string): Condition | undefined {
  return conditionsOf(obj).find((c) => c.type === type);
}

/** Status lists whose entries carry conditions of their own, as Gateway API writes them: one per parent, listener or ancestor. */
const NESTED = ['parents', 'listeners', 'ancestors'] as const;

/** Conditions nested under `status.parents[]`, `status.listeners[]`, `status.ancestors[]`, each with where it sits. */
export function nestedConditionsOf(obj: KubeObject): { where: string; condition: Condition }[] {
  const s = (obj.status ?? {}) as Record<string, unknown>;
  const out: { where: string; condition: Condition }[] = [];
  for (const field of NESTED) {
    const list = s[field];
    if (!Array.isArray(list)) continue;
    list.forEach((entry: unknown, i) => {
      const conds = (entry as { conditions?: unknown } | null)?.conditions;
      if (!Array.isArray(conds)) return;
      const e = entry as { name?: unknown; parentRef?: { name?: unknown }; ancestorRef?: { name?: unknown } };
      const named = e.name ?? e.parentRef?.name ?? e.ancestorRef?.name;
      const where = `${field}[${typeof named === 'string' ? named : i}]`;
      for (const c of conds) if (isCondition(c)) out.push({ where, condition: c });
    });
  }
  return out;
}

/**
 * A generation as a controller wrote it: a number, or a numeric string (some operators declare
 * `observedGeneration` a string in their CRD, e.g. "4"); undefined otherwise.
 */
export function generationOf(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && /^\d{1,15}$/.test(v)) return Number(v);
  return undefined;
}

/** The newest managedFields time for a field set, e.g. the controller's last status write. */
export function managedFieldsTime(obj: KubeObject, match: { subresource?: string; manager?: string } = {}): string | undefined {
  let best: string | undefined;
  for (const m of obj.metadata?.managedFields ?? []) {
    if (match.subresource !== undefined && (m.subresource ?? '') !== match.subresource) continue;
    if (match.manager !== undefined && m.manager !== match.manager) continue;
    if (m.time && (!best || m.time > best)) best = m.time;
  }
  return best;
}

/** Status fields that hold a word for where the object is: `phase`, `state`, and those operators name the same way (`jobDeploymentStatus`, `printableStatus`, `serviceStatus`). */
const STATUS_WORD_FIELD = /^(phase|state|[a-z]\w*(Status|Phase|State))$/;

/** Every status word of the object (STATUS_WORD_FIELD), in the order of its status. */
export function statusWordsOf(obj: KubeObject): { field: string; value: string }[] {
  const out: { field: string; value: string }[] = [];
  for (const [field, value] of Object.entries((obj.status ?? {}) as Record<string, unknown>))
    if (typeof value === 'string' && value !== '' && STATUS_WORD_FIELD.test(field)) out.push({ field, value });
  return out;
}

/** `status.phase`, else `status.state`, with the field it came from. */
export function phaseOf(obj: KubeObject): { field: 'phase' | 'state'; value: string } | undefined {
  const s = (obj.status ?? {}) as { phase?: unknown; state?: unknown };
  if (typeof s.phase === 'string' && s.phase) return { field: 'phase', value: s.phase };
  if (typeof s.state === 'string' && s.state) return { field: 'state', value: s.state };
  return undefined;
}

/** `Ready=False Failed: the message`. */
export function saidOf(c: Condition): string {
  return `${c.type}=${c.status}${c.reason ? ` ${c.reason}` : ''}${c.message ? `: ${c.message}` : ''}`;
}
