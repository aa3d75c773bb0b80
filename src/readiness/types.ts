/** What the readiness engine says of an object, and the interface every command judges through. */
import type { GroupKind, KubeObject } from '../kube/index.js';

/**
 * kstatus's words, plus `Suspended`: a paused or suspended object (a Flux `spec.suspend`, an Argo
 * Rollout at a pause step) waits for someone — a step's timer, a user — and is neither ready nor
 * failed.
 */
export type ReadinessStatus = 'Current' | 'InProgress' | 'Failed' | 'Suspended' | 'Terminating' | 'Unknown';

/** Where a deciding rule comes from, in the order they are consulted. */
export type RuleLayer = 'ready' | 'user' | 'library' | 'builtin' | 'generic';

export interface Verdict {
  status: ReadinessStatus;
  /** The rule that decided: `--ready`, `cert-manager.io Certificate`, `apps Deployment`, `Ready condition`. */
  rule: string;
  layer: RuleLayer;
  /** The file the rule came from: a user's rules file, or `library/<group>.yaml`. */
  source?: string | undefined;
  /** What the status says, in words: `3 updated, 3 ready, 3 available of 3`, `Ready=False Failed: …`. */
  detail: string;
  /** The server's time for the decision, when the status records one. */
  serverTime?: string | undefined;
  serverTimeSource?: string | undefined;
  /**
   * The status says only that its controller caught up (an observedGeneration, or positive
   * conditions that are all True with no Ready among them): the objects it owns decide. A trace
   * waits for its children; judged alone it is what `status` says.
   */
  childrenDecide?: boolean;
}

/** One rule consulted for `--explain`: whether it decided, and why or why not. */
export interface Consultation {
  layer: RuleLayer;
  rule: string;
  source?: string | undefined;
  decided: boolean;
  /** Why it did not apply, or what it said. */
  why: string;
}

export interface JudgeOptions {
  /** The trace's target: `--ready` decides for it alone. */
  target?: boolean;
  /** The object's kind when the object does not carry one (a List's items as some servers send them). */
  kind?: string;
  /** Its apiVersion likewise. */
  apiVersion?: string;
}

/**
 * The readiness engine: built once per command from the shared flags (--ready, --health-rules, the
 * config folder's file) and handed to everything that judges an object.
 */
export interface Readiness {
  judge(obj: KubeObject, o?: JudgeOptions): Verdict;
  /** Every rule consulted, in order, down to the one that decided. */
  explain(obj: KubeObject, o?: JudgeOptions): { verdict: Verdict; consulted: Consultation[] };
  /** Whether the object has a readiness to judge (not a ConfigMap, an empty status, a ClusterIP Service). */
  hasReadiness(obj: KubeObject, o?: JudgeOptions): boolean;
  /**
   * Whether an object in a chain holds the chain up: undefined when it is ready, being deleted,
   * without readiness, or of unknown readiness; otherwise why not, naming it.
   */
  childNotReady(obj: KubeObject, o?: JudgeOptions): string | undefined;
  /**
   * Loads what judging these kinds needs (the CEL evaluator, for a kind the library has rules for)
   * before any of their objects is judged: the tracer once it knows its chain's kinds, `health`
   * once it has read its objects.
   */
  prepare(kinds: readonly GroupKind[]): Promise<void>;
  /**
   * Whether an object of this kind can be judged now: false only for a kind the library has rules
   * for while the CEL evaluator is not loaded (prepare() it first).
   */
  canJudge(kind: GroupKind): boolean;
  /** The user's rules files read, for `--explain` and the docs' "what each command reads". */
  readonly files: readonly string[];
}

/** `apps/v1` → `apps`, `v1` → ``. */
export function groupOf(apiVersion: string | undefined): string {
  if (!apiVersion) return '';
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** The verdict's detail with the rule that decided, as a hop or a table shows it; built-in workload rules speak for themselves. */
export function describeVerdict(v: Verdict): string {
  if (v.layer === 'builtin') return v.detail;
  return `${v.detail} (rule: ${v.rule}${v.source && v.source !== v.rule ? `, ${v.source}` : ''})`;
}

/** Current or Failed: nothing more will change without a new change. */
export function isSettled(v: Verdict): boolean {
  return v.status === 'Current' || v.status === 'Failed';
}
