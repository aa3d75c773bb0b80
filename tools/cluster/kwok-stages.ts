/**
 * kwok's stage set for the local cluster: kwok's own node and pod stages, plus stages that make the
 * fake nodes behave like kubelets after a fault and simulate container failures on request.
 *
 * - pod-ready-again: kwok stopped → its nodes stop heartbeating → the node lifecycle controller
 *   marks their Pods Ready=False. A kubelet sets Ready back once its node is Ready; kwok's own
 *   stages never do. This stage does: a Running Pod whose containers are all ready but which is not
 *   Ready gets Ready=True again. While its node is still NotReady the node lifecycle controller
 *   marks it not ready once more, and the stage repeats, so it holds once the node is Ready.
 * - A Pod annotated `informer-trace.test/simulate` (set it on the pod template) skips kwok's
 *   pod-ready stage and instead:
 *     never-ready       Running, its containers running but never ready (a failing readiness
 *                       probe: ContainersReady=False ContainersNotReady, Warning Unhealthy Event)
 *     image-pull-error  stays Pending with waiting reason ErrImagePull (Warning Failed Event), then
 *                       ImagePullBackOff (Warning BackOff Event), and stays there
 *     fail              its containers exit with code 1 and the Pod is Failed (for Jobs with
 *                       restartPolicy Never: each attempt fails until the backoffLimit)
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';

export const SIMULATE_ANNOTATION = 'informer-trace.test/simulate';
export type SimulatedFailure = 'never-ready' | 'image-pull-error' | 'fail';

/** kwok's stage files the cluster uses, relative to its kustomize/stage folder. */
const KWOK_STAGE_FILES = [
  'node/fast/node-initialize.yaml',
  'node/heartbeat-with-lease/node-heartbeat-with-lease.yaml',
  'pod/general/pod-create.yaml',
  'pod/general/pod-init-container-running.yaml',
  'pod/general/pod-init-container-completed.yaml',
  'pod/general/pod-ready.yaml',
  'pod/general/pod-complete.yaml',
  'pod/general/pod-delete.yaml',
];

const simulateKey = `.metadata.annotations["${SIMULATE_ANNOTATION}"]`;

/** Pending, initialised, containers not started yet: where kwok's pod-ready stage would act. */
const STARTING = `
    - key: '.metadata.deletionTimestamp'
      operator: 'DoesNotExist'
    - key: '.status.phase'
      operator: 'In'
      values: ['Pending']
    - key: '.status.conditions.[] | select( .type == "Initialized" ) | .status'
      operator: 'In'
      values: ['True']`;

function simulated(value: SimulatedFailure): string {
  return `
    - key: '${simulateKey}'
      operator: 'In'
      values: ['${value}']`;
}

/** A Stage for Pods: `matchExpressions` continues the selector list, `next` the body of spec.next. */
function podStage(name: string, matchExpressions: string, delayMs: number, next: string): string {
  return `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: ${name}
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:${matchExpressions}
  delay:
    durationMilliseconds: ${delayMs}
  next:${next}
`;
}

function warningEvent(reason: string, message: string): string {
  return `
    event:
      type: Warning
      reason: ${reason}
      message: '${message}'`;
}

/** statusTemplate lines for a condition of type `type` that is False since `$now`. */
function falseCondition(type: string, reason: string, message?: string): string {
  return `
      - lastProbeTime: null
        lastTransitionTime: {{ $now | Quote }}${
          message === undefined
            ? ''
            : `
        message: '${message}'`
        }
        reason: ${reason}
        status: "False"
        type: ${type}`;
}

/** statusTemplate lines giving every container a status that is not ready, in `state` (YAML under state:). */
function containerStatuses(started: boolean, state: string): string {
  return `
      containerStatuses:
      {{ range .spec.containers }}
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: false
        restartCount: 0
        started: ${started}
        state:${state}
      {{ end }}`;
}

const UNREADY_MESSAGE = 'containers with unready status: [{{ range .spec.containers }} {{ .name }} {{ end }}]';

function waitingReason(value: string): string {
  return `
    - key: '.status.containerStatuses.[].state.waiting.reason'
      operator: 'In'
      values: ['${value}']`;
}

const OUR_STAGES = [
  podStage(
    'pod-ready-again',
    `
    - key: '.metadata.deletionTimestamp'
      operator: 'DoesNotExist'
    - key: '.status.phase'
      operator: 'In'
      values: ['Running']
    - key: '.status.conditions.[] | select( .type == "Ready" ) | .status'
      operator: 'In'
      values: ['False']
    - key: '.status.conditions.[] | select( .type == "ContainersReady" ) | .status'
      operator: 'In'
      values: ['True']
    - key: '${simulateKey}'
      operator: 'DoesNotExist'`,
    2000,
    `
    statusTemplate: |
      conditions:
      - lastProbeTime: null
        lastTransitionTime: {{ Now | Quote }}
        message: ''
        reason: ''
        status: "True"
        type: Ready`,
  ),
  podStage(
    'pod-simulate-never-ready',
    STARTING + simulated('never-ready'),
    1000,
    `${warningEvent('Unhealthy', `Readiness probe failed (simulated: ${SIMULATE_ANNOTATION}=never-ready)`)}
    statusTemplate: |
      {{ $now := Now }}
      conditions:${falseCondition('Ready', 'ContainersNotReady', UNREADY_MESSAGE)}${falseCondition('ContainersReady', 'ContainersNotReady', UNREADY_MESSAGE)}${containerStatuses(
        true,
        `
          running:
            startedAt: {{ $now | Quote }}`,
      )}
      phase: Running
      startTime: {{ $now | Quote }}`,
  ),
  podStage(
    'pod-simulate-err-image-pull',
    STARTING + simulated('image-pull-error') + waitingReason('ContainerCreating'),
    1000,
    `${warningEvent('Failed', `Failed to pull image: not found (simulated: ${SIMULATE_ANNOTATION}=image-pull-error)`)}
    statusTemplate: |${containerStatuses(
      false,
      `
          waiting:
            reason: ErrImagePull
            message: 'failed to pull image {{ .image }}: not found (simulated)'`,
    )}`,
  ),
  podStage(
    'pod-simulate-image-pull-backoff',
    STARTING + simulated('image-pull-error') + waitingReason('ErrImagePull'),
    1000,
    `${warningEvent('BackOff', `Back-off pulling image (simulated: ${SIMULATE_ANNOTATION}=image-pull-error)`)}
    statusTemplate: |${containerStatuses(
      false,
      `
          waiting:
            reason: ImagePullBackOff
            message: 'Back-off pulling image {{ .image | Quote }} (simulated)'`,
    )}`,
  ),
  podStage(
    'pod-simulate-fail',
    STARTING + simulated('fail'),
    1000,
    `
    statusTemplate: |
      {{ $now := Now }}
      conditions:${falseCondition('Ready', 'PodFailed')}${falseCondition('ContainersReady', 'PodFailed')}${containerStatuses(
        false,
        `
          terminated:
            exitCode: 1
            reason: Error
            message: 'simulated: ${SIMULATE_ANNOTATION}=fail'
            startedAt: {{ $now | Quote }}
            finishedAt: {{ $now | Quote }}`,
      )}
      phase: Failed
      startTime: {{ $now | Quote }}`,
  ),
];

/**
 * kwok's stage file with one more selector requirement: Pods that carry the simulate annotation
 * are left to our stages (kwok picks at random among matching stages, so they must not match both).
 */
function withoutSimulated(text: string, file: string): string {
  const doc = parseDocument(text);
  const expressions = doc.getIn(['spec', 'selector', 'matchExpressions']);
  if (!expressions || typeof (expressions as { add?: unknown }).add !== 'function') throw new Error(`kwok stage ${file} has no spec.selector.matchExpressions`);
  (expressions as { add(v: unknown): void }).add(doc.createNode({ key: simulateKey, operator: 'DoesNotExist' }));
  return doc.toString();
}

/** The multi-document stage configuration kwok's --config reads. */
export function kwokStagesYaml(stagesDir: string): string {
  const docs = KWOK_STAGE_FILES.filter((f) => existsSync(join(stagesDir, f))).map((f) => {
    const text = readFileSync(join(stagesDir, f), 'utf8');
    return (f.endsWith('/pod-ready.yaml') ? withoutSimulated(text, f) : text).trim();
  });
  if (docs.length === 0) throw new Error(`no kwok stage files under ${stagesDir}`);
  return `${[...docs, ...OUR_STAGES.map((s) => s.trim())].join('\n---\n')}\n`;
}
