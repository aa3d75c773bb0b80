import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube/index.js';
import { NS, ago, deployment, input, pod } from '../../tools/testing/diagnose-input.js';
import { diagnose } from './diagnose.js';
import type { DiagnoseInput } from './types.js';

describe('diagnose: status conditions and Jobs', () => {
  const job = (o: { failed?: number; conditions?: unknown[] } = {}): KubeObject => ({
    metadata: { name: 'batch', namespace: NS, uid: 'job-1', generation: 1, creationTimestamp: ago(200) },
    spec: { backoffLimit: 2, parallelism: 1, completions: 1 },
    status: { failed: o.failed ?? 0, active: 0, ...(o.conditions ? { conditions: o.conditions } : {}) },
  });
  const failedPod = (name: string, createdAgo: number): KubeObject =>
    pod({
      name,
      phase: 'Failed',
      ready: false,
      createdAgo,
      owner: { kind: 'Job', uid: 'job-1', name: 'batch' },
      containerStatuses: [
        { name: 'app', ready: false, restartCount: 0, state: { terminated: { exitCode: 1, reason: 'Error', finishedAt: ago(createdAgo - 2) } } },
      ],
    });
  const jobInput = (j: KubeObject, pods: KubeObject[]): DiagnoseInput => ({
    ...input(),
    target: { kind: 'Job', namespace: NS, name: 'batch' },
    object: j,
    descendants: pods.map((obj) => ({ kind: 'Pod', obj })),
  });

  it('a Job past its backoffLimit: the Failed condition, with what its Pods died of', () => {
    const j = job({
      failed: 3,
      conditions: [
        { type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit', lastTransitionTime: ago(10) },
      ],
    });
    const d = diagnose(jobInput(j, [failedPod('batch-1', 100), failedPod('batch-2', 60), failedPod('batch-3', 20)]));
    expect(d.verdict).toBe('broken');
    expect(d.link).toBe('status-conditions');
    expect(d.summary).toBe('Job/batch: Failed True: BackoffLimitExceeded: Job has reached the specified backoff limit');
    expect(d.evidence[0]).toMatchObject({ object: { kind: 'Job', name: 'batch' }, type: 'Failed', reason: 'BackoffLimitExceeded', forMs: 10_000 });
    expect(d.evidence[1]).toMatchObject({
      object: { kind: 'Pod', name: 'batch-3' },
      source: 'container',
      status: 'terminated',
      reason: 'Error',
      message: 'exited with code 1',
    });
    expect(d.next).toEqual(['kubectl describe job batch -n demo', 'kubectl logs batch-3 -n demo']);
  });

  it('a Job still retrying: the failed attempt at containers-started, with the retries so far', () => {
    const d = diagnose(jobInput(job({ failed: 1 }), [failedPod('batch-1', 30)]));
    expect(d.link).toBe('containers-started');
    expect(d.summary).toContain('exit code 1; the Job retries (1 failed, backoffLimit 2)');
  });

  it('ProgressDeadlineExceeded follows the cause found at an earlier link', () => {
    const dep = deployment({
      ready: 1,
      conditions: [
        {
          type: 'Progressing',
          status: 'False',
          reason: 'ProgressDeadlineExceeded',
          message: 'ReplicaSet "web-abc" has timed out progressing.',
          lastTransitionTime: ago(5),
        },
      ],
    });
    const p = pod({
      name: 'web-abc-1',
      ready: false,
      containerStatuses: [{ name: 'app', ready: false, state: { waiting: { reason: 'ErrImagePull', message: 'pull failed' } } }],
    });
    const d = diagnose(input({ object: dep, pods: [pod({ name: 'web-abc-2' }), p] }));
    expect(d.link).toBe('containers-started');
    expect(d.evidence.at(-1)).toMatchObject({ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' });
  });

  it('ProgressDeadlineExceeded alone is broken at status-conditions', () => {
    const dep = deployment({
      conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: 'timed out', lastTransitionTime: ago(5) }],
    });
    const d = diagnose(input({ object: dep }));
    expect(d.link).toBe('status-conditions');
  });
});
