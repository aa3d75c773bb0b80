/** Reading facts out of cached objects and Events, as evidence with its time. Pure. */
import type { KubeObject } from '../kube/index.js';
import type { Evidence, EvidenceObject } from './types.js';

import type { Condition } from '../readiness/index.js';

export { conditionOf, type Condition } from '../readiness/index.js';

export function refOf(kind: string, obj: KubeObject): EvidenceObject {
  return { kind, namespace: obj.metadata.namespace, name: obj.metadata.name ?? '' };
}

/** ms since an RFC 3339 time, or undefined when there is none. */
export function since(iso: string | undefined, now: number): number | undefined {
  if (!iso) return undefined;
  const t = Date.parse(iso);
  return Number.isFinite(t) ? Math.max(0, now - t) : undefined;
}

export function conditionEvidence(object: EvidenceObject, c: Condition, now: number): Evidence {
  return {
    object,
    source: 'condition',
    type: c.type,
    status: c.status,
    reason: c.reason ?? '',
    message: c.message ?? '',
    since: c.lastTransitionTime,
    forMs: since(c.lastTransitionTime, now),
  };
}

/** The controller owner's uid (ownerReferences with controller: true). */
export function controllerUid(obj: KubeObject): string | undefined {
  return obj.metadata.ownerReferences?.find((o) => o.controller)?.uid;
}

/** events.k8s.io/v1 Event fields we read (core/v1 Events are served through it with deprecated* fields). */
interface EventFields {
  type?: string;
  reason?: string;
  note?: string;
  eventTime?: string | null;
  deprecatedFirstTimestamp?: string | null;
  deprecatedLastTimestamp?: string | null;
  deprecatedCount?: number | null;
  series?: { count?: number; lastObservedTime?: string } | null;
  regarding?: { kind?: string; name?: string; namespace?: string; uid?: string };
  reportingController?: string;
  deprecatedSource?: { component?: string } | null;
}

export function eventLastTime(e: KubeObject): string | undefined {
  const ev = e as KubeObject & EventFields;
  return ev.series?.lastObservedTime ?? ev.deprecatedLastTimestamp ?? ev.eventTime ?? e.metadata.creationTimestamp ?? undefined;
}

function eventFirstTime(e: KubeObject): string | undefined {
  const ev = e as KubeObject & EventFields;
  return ev.deprecatedFirstTimestamp ?? ev.eventTime ?? e.metadata.creationTimestamp ?? undefined;
}

export function eventReason(e: KubeObject): string {
  return (e as KubeObject & EventFields).reason ?? '';
}

export function eventType(e: KubeObject): string {
  return (e as KubeObject & EventFields).type ?? '';
}

/** Events about one object (by uid when both have one, else kind and name), newest first. */
export function eventsAbout(events: readonly KubeObject[], kind: string, obj: KubeObject, filter: (e: KubeObject) => boolean = () => true): KubeObject[] {
  const uid = obj.metadata.uid;
  return events
    .filter((e) => {
      const r = (e as KubeObject & EventFields).regarding;
      if (!r) return false;
      if (uid && r.uid) return r.uid === uid;
      return r.kind === kind && r.name === obj.metadata.name;
    })
    .filter(filter)
    .sort((a, b) => (eventLastTime(b) ?? '').localeCompare(eventLastTime(a) ?? ''));
}

export function eventEvidence(object: EvidenceObject, e: KubeObject, now: number): Evidence {
  const ev = e as KubeObject & EventFields;
  const first = eventFirstTime(e);
  const count = ev.series?.count ?? ev.deprecatedCount ?? undefined;
  return {
    object,
    source: 'event',
    type: ev.type,
    reason: ev.reason ?? '',
    message: (ev.note ?? '').trim(),
    since: first,
    forMs: since(first, now),
    ...(count && count > 1 ? { count } : {}),
    reporter: ev.reportingController || ev.deprecatedSource?.component || undefined,
  };
}

export interface ContainerState {
  waiting?: { reason?: string; message?: string };
  running?: { startedAt?: string };
  terminated?: { exitCode?: number; reason?: string; message?: string; startedAt?: string; finishedAt?: string };
}

export interface ContainerStatus {
  name: string;
  ready?: boolean;
  started?: boolean;
  restartCount?: number;
  image?: string;
  state?: ContainerState;
  lastState?: ContainerState;
}

export function containerStatuses(pod: KubeObject): { init: ContainerStatus[]; main: ContainerStatus[] } {
  const s = (pod.status ?? {}) as { initContainerStatuses?: ContainerStatus[]; containerStatuses?: ContainerStatus[] };
  return { init: Array.isArray(s.initContainerStatuses) ? s.initContainerStatuses : [], main: Array.isArray(s.containerStatuses) ? s.containerStatuses : [] };
}
