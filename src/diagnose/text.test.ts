import { describe, expect, it } from 'vitest';
import { ago, deployment, input, pod } from '../../tools/testing/diagnose-input.js';
import { diagnose } from './diagnose.js';
import { diagnosisBrief, diagnosisText } from './text.js';

describe('diagnosisText', () => {
  it('prints the verdict, evidence with durations, next commands and the links', () => {
    const msg = '0/2 nodes are available: 2 Insufficient cpu.';
    const p = pod({
      name: 'web-abc-1',
      node: null,
      createdAgo: 20,
      conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: msg, lastTransitionTime: ago(20) }],
    });
    const text = diagnosisText(diagnose(input({ object: deployment({ ready: 1 }), pods: [pod({ name: 'web-abc-2' }), p] })));
    expect(text).toContain('diagnosis: broken at "scheduled" (the scheduler placed the Pods)');
    expect(text).toContain(`Pod/web-abc-1  PodScheduled=False Unschedulable: ${msg} (for 20.0s, since ${ago(20)})`);
    expect(text).toContain('next:\n  kubectl describe pod web-abc-1 -n demo');
    expect(text).toContain('links: spec ok · accepted ok · controller-observed ok · children-created ok · scheduled BROKEN');
  });

  it('diagnosisBrief puts the verdict, the first evidence and the first command on one line', () => {
    const p = pod({
      name: 'web-abc-1',
      node: null,
      createdAgo: 20,
      conditions: [
        {
          type: 'PodScheduled',
          status: 'False',
          reason: 'Unschedulable',
          message: '0/2 nodes are available: 2 Insufficient cpu.',
          lastTransitionTime: ago(20),
        },
      ],
    });
    const brief = diagnosisBrief(
      diagnose(input({ object: deployment({ ready: 1 }), pods: [pod({ name: 'web-abc-2' }), p], events: { seen: false, why: 'forbidden (403)' } })),
    );
    expect(brief).toBe(
      `diagnosis: broken at "scheduled": Deployment/web: 1 Pod cannot be scheduled: Unschedulable: 0/2 nodes are available: 2 Insufficient cpu.; evidence: Pod/web-abc-1  PodScheduled=False Unschedulable: 0/2 nodes are available: 2 Insufficient cpu. (for 20.0s, since ${ago(20)}); next: kubectl describe pod web-abc-1 -n demo; could not see: Events in demo (forbidden (403))`,
    );
    expect(brief).not.toContain('\n');
  });
});
