/** The diagnosis as plain, serialisable data: what it reads and what it says. */
import type { Readiness } from '../readiness/index.js';
import type { KubeObject, Lease } from '../kube/index.js';
import type { QueueRow } from '../metrics/index.js';

/**
 * The links of a reconcile chain, in the order people check them: the spec is what was meant →
 * the API server accepted it → the parent's controller observed it → it created the children →
 * the scheduler placed them → the node started their containers → what the status conditions say.
 */
export const LINKS = ['spec', 'accepted', 'controller-observed', 'children-created', 'scheduled', 'containers-started', 'status-conditions'] as const;
export type LinkName = (typeof LINKS)[number];

export const linkTitles: Record<LinkName, string> = {
  spec: 'the spec is what was meant',
  accepted: 'the API server accepted it',
  'controller-observed': 'the controller observed it',
  'children-created': 'the controller created the children',
  scheduled: 'the scheduler placed the Pods',
  'containers-started': 'the node started the containers',
  'status-conditions': 'the status conditions',
};

/** Evidence that was read, or why it could not be: a diagnosis never fills a gap with a guess. */
export type Seen<T> = { seen: true; value: T } | { seen: false; why: string };

export interface LeaseInput {
  /** The component that holds it: kube-controller-manager (workload controllers), kube-scheduler, or an operator by its field manager. */
  component: string;
  namespace: string;
  name: string;
  /** The Lease; `value: undefined` when it does not exist. */
  lease: Seen<Lease | undefined>;
}

export interface DiagnoseInput {
  /** Our clock, ms since the epoch. */
  now: number;
  target: { kind: string; namespace?: string | undefined; name: string };
  /** The target as the cache holds it; undefined when it does not exist. */
  object: KubeObject | undefined;
  /** Its descendants down the owner chain (ReplicaSets, Pods, Jobs, ...), each with its kind. */
  descendants: { kind: string; obj: KubeObject }[];
  /** events.k8s.io/v1 Events of the namespace. */
  events: Seen<KubeObject[]>;
  /** The cluster's Nodes. */
  nodes: Seen<KubeObject[]>;
  /** Leader Leases of the controllers that act on this chain. A Lease not given is not judged. */
  leases: LeaseInput[];
  /** The controllers' work queues, from their metrics; absent when not asked for. */
  queues?: Seen<QueueRow[]> | undefined;
  /** How long a step may take before it counts as stuck rather than in progress (default 30 s). */
  graceMs?: number | undefined;
  /** For a kind kube-controller-manager does not reconcile: the operator behind it (operator.ts); its Lease is among `leases`. */
  operator?: ControllerBehind | undefined;
  /** The command's readiness engine: judges the target (its `--ready` too) and what it owns. */
  readiness: Readiness;
}

export interface ControllerQueue {
  /** The metrics source (its URL or name) the numbers come from: the leader's. */
  source: string;
  /** Why that source: it says it leads (leader_election_master_status 1), its queue alone moved, or it is the only one. */
  sourceIs: 'leader' | 'moved' | 'only';
  /** How the source was found without --metrics (discovery from the operator's Lease); empty for --metrics. */
  foundBy: string[];
  /** The queue's `name` label: `rollouts` (client-go, named by the operator), `raycluster` (controller-runtime). */
  queue: string;
  /** controller-runtime's controller name; for a client-go queue, which has none, the queue's name. */
  controller: string;
  /** How the queue was matched to the target: a controller-runtime controller or a client-go queue named for its kind, else the only queue that moved. */
  matchedBy: 'kind' | 'queue-name' | 'activity';
  /** Other queues that matched as well (on the chosen source), not joined. */
  alsoMatched: string[];
  depth: number | null;
  /** Increases over the trace's window (between the two scrapes). */
  adds: number | null;
  retries: number | null;
  /** Reconciles by result (success, error, requeue, requeue_after) during the window (controller-runtime only). */
  reconciles: Record<string, number>;
  /** Seconds a worker spent on an item (workqueue_work_duration_seconds) over the window; null when absent. */
  workTime: { p50: number | null; p99: number | null; observations: number | null } | null;
  /** Counters the operator exports per object that name the traced one (e.g. Argo Rollouts' rollout_reconcile{name,namespace}). */
  objectReconciles: ObjectReconciles[];
  windowMs: number | null;
}

/** An operator's own per-object reconcile metric, for the traced object, over the trace's window. */
export interface ObjectReconciles {
  /** The metric family: `rollout_reconcile`. */
  metric: string;
  /** Reconciles (a histogram's or summary's count, or a counter) during the window. */
  count: number;
  /** Mean seconds per reconcile during the window, from a histogram's or summary's sum; null for a counter. */
  meanSeconds: number | null;
}

export interface ControllerBehind {
  /** The field manager of its status writes. */
  manager: string | null;
  lease: {
    namespace: string;
    name: string;
    holder: string | null;
    renewTime: string | null;
    leaseDurationSeconds: number | null;
    transitions: number | null;
    foundBy: 'metrics' | 'name';
  } | null;
  queue: ControllerQueue | null;
  /** Why a part is missing: "no Lease matches kuberay-operator in ray-try", "no --metrics given". */
  unseen: string[];
}

export interface EvidenceObject {
  kind: string;
  namespace?: string | undefined;
  name: string;
}

export interface Evidence {
  object: EvidenceObject;
  /** What kind of fact: a status condition, an Event, a container's state, a field, a Lease, a queue. */
  source: 'condition' | 'event' | 'container' | 'field' | 'lease' | 'queue';
  /** Condition type, container name, field path, Event type (Warning/Normal). */
  type?: string | undefined;
  /** Condition status, container state (waiting/terminated/running). */
  status?: string | undefined;
  reason: string;
  message: string;
  /** Server time the fact began: lastTransitionTime, the Event's first time, expiry time. */
  since?: string | undefined;
  /** How long it has been so, at the diagnosis time. */
  forMs?: number | undefined;
  /** An Event's count (series count or deprecatedCount). */
  count?: number | undefined;
  /** An Event's reporting controller. */
  reporter?: string | undefined;
}

export interface Unseen {
  /** What could not be seen: `Events in demo`, `Lease kube-system/kube-controller-manager`, `Nodes`. */
  what: string;
  why: string;
}

export type LinkStatus = 'ok' | 'progressing' | 'broken' | 'unknown' | 'not-applicable';

export interface LinkCheck {
  link: LinkName;
  status: LinkStatus;
  detail: string;
}

export interface Diagnosis {
  target: { kind: string; namespace?: string | undefined; name: string };
  /** When it was computed (ISO). */
  at: string;
  /** healthy: every link checked and none broken; broken: `link` is the first broken one; unknown: something needed could not be seen. */
  verdict: 'healthy' | 'broken' | 'unknown';
  link: LinkName | null;
  /** One line: what is wrong, or that it converged / is progressing. */
  summary: string;
  evidence: Evidence[];
  /** Commands a person would run next. */
  next: string[];
  unseen: Unseen[];
  /** Every link, in order, with what was found. */
  links: LinkCheck[];
}
