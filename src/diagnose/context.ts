/**
 * What every link of the diagnosis reads and returns: the input with its clock and grace, what could
 * not be seen, and the small facts of objects the links share. Pure.
 */
import { groupKindKey, type KubeObject } from '../kube/index.js';
import { groupKindOf, managedFieldsTime } from '../readiness/index.js';
import { conditionOf, controllerUid, eventEvidence, eventLastTime, eventsAbout, eventType, refOf } from './evidence.js';
import type { DiagnoseInput, Diagnosis, Evidence, LeaseInput, LinkStatus, Unseen } from './types.js';

export const DEFAULT_GRACE_MS = 30_000;
/** Evidence is listed for at most this many objects with the same problem. */
export const MAX_OBJECTS = 3;

/** What one link found. */
export interface LinkResult {
  status: LinkStatus;
  detail: string;
  evidence: Evidence[];
  next: string[];
}

export const ok = (detail: string): LinkResult => ({ status: 'ok', detail, evidence: [], next: [] });
export const na = (detail: string): LinkResult => ({ status: 'not-applicable', detail, evidence: [], next: [] });

/** An object of the chain with its kind, as the input's descendants hold them. */
export interface Obj {
  kind: string;
  obj: KubeObject;
}

const POD = groupKindKey({ group: '', kind: 'Pod' });

/** A Pod of the core group, not a custom resource of that name. */
export function isPod(o: Obj): boolean {
  return groupKindKey(groupKindOf(o.obj, { kind: o.kind })) === POD;
}

export class Context {
  readonly now: number;
  readonly grace: number;
  readonly ns: string | undefined;
  readonly pods: KubeObject[];
  readonly unseen: Unseen[] = [];
  private readonly unseenKeys = new Set<string>();

  /** `diagnose` is the whole walk, for a link that diagnoses an object of the chain as a chain of its own. */
  constructor(
    readonly input: DiagnoseInput,
    readonly diagnose: (input: DiagnoseInput) => Diagnosis,
  ) {
    this.now = input.now;
    this.grace = input.graceMs ?? DEFAULT_GRACE_MS;
    this.ns = input.target.namespace;
    this.pods = input.descendants.filter(isPod).map((d) => d.obj);
    if (!input.events.seen) this.addUnseen(`Events in ${this.ns ?? 'the cluster'}`, input.events.why);
    if (!input.nodes.seen) this.addUnseen('Nodes', input.nodes.why);
    for (const l of input.leases) if (!l.lease.seen) this.addUnseen(`Lease ${l.namespace}/${l.name}`, l.lease.why);
    if (input.queues && !input.queues.seen) this.addUnseen("the controllers' work queues (metrics)", input.queues.why);
  }

  addUnseen(what: string, why: string): void {
    if (this.unseenKeys.has(what)) return;
    this.unseenKeys.add(what);
    this.unseen.push({ what, why });
  }

  events(): KubeObject[] {
    return this.input.events.seen ? this.input.events.value : [];
  }

  eventsAbout(kind: string, obj: KubeObject, filter?: (e: KubeObject) => boolean): KubeObject[] {
    return eventsAbout(this.events(), kind, obj, filter);
  }

  lease(component: LeaseInput['component']): LeaseInput | undefined {
    return this.input.leases.find((l) => l.component === component);
  }

  nsFlag(): string {
    return this.ns ? ` -n ${this.ns}` : '';
  }

  /** `kubectl describe pod web-1 -n demo` */
  kubectl(verb: string, kind: string, name: string, extra = ''): string {
    return `kubectl ${verb} ${kind.toLowerCase()} ${name}${this.nsFlag()}${extra}`;
  }

  /** The Pods an object owns as their controller. */
  podsOf(owner: KubeObject): KubeObject[] {
    const uid = owner.metadata.uid;
    return this.input.descendants.filter((d) => isPod(d) && uid !== undefined && controllerUid(d.obj) === uid).map((d) => d.obj);
  }
}

export const live = (o: KubeObject): boolean => !o.metadata.deletionTimestamp;
export const phaseOf = (pod: KubeObject): string => (pod.status as { phase?: string } | undefined)?.phase ?? 'Pending';
export const num = (v: unknown, dflt = 0): number => (typeof v === 'number' ? v : dflt);

/** When the object's spec last changed (its newest non-status write), else its creation. */
export function lastSpecChange(obj: KubeObject): string | undefined {
  return managedFieldsTime(obj, { subresource: '' }) ?? obj.metadata.creationTimestamp;
}

/** a ≥ b − 1 s (server times have second precision); true when b is empty. */
export function isAfter(a: string | undefined, b: string): boolean {
  if (!b) return true;
  if (!a) return false;
  return Date.parse(a) >= Date.parse(b) - 1000;
}

export function isReady(pod: KubeObject): boolean {
  return conditionOf(pod, 'Ready')?.status === 'True';
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The newest Warning Events about an object (at most two), as evidence. */
export function warningsAbout(ctx: Context, kind: string, obj: KubeObject): Evidence[] {
  return ctx
    .eventsAbout(kind, obj, (e) => eventType(e) === 'Warning')
    .sort((a, b) => (eventLastTime(b) ?? '').localeCompare(eventLastTime(a) ?? ''))
    .slice(0, 2)
    .map((e) => eventEvidence(refOf(kind, obj), e, ctx.now));
}
