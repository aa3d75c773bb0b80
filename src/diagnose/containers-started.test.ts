import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube/index.js';
import { ago, deployment, event, input, node, pod } from '../../tools/testing/diagnose-input.js';
import { diagnose } from './diagnose.js';

describe('diagnose: containers started', () => {
  it('a node that stopped heartbeating: the node condition, then the Pod', () => {
    const p = pod({
      name: 'web-abc-1',
      ready: true,
      readyAgo: 30,
      conditions: [
        { type: 'PodScheduled', status: 'True' },
        { type: 'ContainersReady', status: 'True', lastTransitionTime: ago(300) },
        { type: 'Ready', status: 'False', lastTransitionTime: ago(30) },
      ],
    });
    const ev = event({ reason: 'NodeNotReady', kind: 'Pod', regarding: p, note: 'Node is not ready', controller: 'node-controller' });
    const d = diagnose(
      input({
        object: deployment({ ready: 1 }),
        pods: [p, pod({ name: 'web-abc-2', node: 'node-b' })],
        nodes: { seen: true, value: [node('node-a', 'Unknown', 35), node('node-b')] },
        events: { seen: true, value: [ev] },
      }),
    );
    expect(d.link).toBe('containers-started');
    expect(d.summary).toContain('node node-a is not Ready');
    expect(d.evidence[0]).toMatchObject({
      object: { kind: 'Node', name: 'node-a' },
      type: 'Ready',
      status: 'Unknown',
      reason: 'NodeStatusUnknown',
      message: 'Kubelet stopped posting node status.',
      forMs: 35_000,
    });
    expect(d.evidence[1]).toMatchObject({ object: { kind: 'Pod', name: 'web-abc-1' }, type: 'Ready', status: 'False' });
    expect(d.evidence[2]).toMatchObject({ source: 'event', reason: 'NodeNotReady' });
    expect(d.next[0]).toBe('kubectl describe node node-a');
  });

  it('an image that cannot be pulled is broken at once, whatever the grace', () => {
    const p = pod({
      name: 'web-abc-1',
      ready: false,
      readyAgo: 4,
      phase: 'Pending',
      containerStatuses: [
        { name: 'app', ready: false, restartCount: 0, state: { waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image "nope:1"' } } },
      ],
    });
    const d = diagnose(input({ object: deployment({ ready: 1 }), pods: [pod({ name: 'web-abc-2' }), p] }));
    expect(d.link).toBe('containers-started');
    expect(d.evidence[0]).toMatchObject({
      source: 'container',
      type: 'container app',
      status: 'waiting',
      reason: 'ImagePullBackOff',
      message: 'Back-off pulling image "nope:1"',
    });
    expect(d.next).toEqual(['kubectl describe pod web-abc-1 -n demo']);
  });

  it("a crash loop points at the previous container's logs", () => {
    const p = pod({
      name: 'web-abc-1',
      ready: false,
      containerStatuses: [
        {
          name: 'app',
          ready: false,
          restartCount: 4,
          state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 40s' } },
          lastState: { terminated: { exitCode: 2, reason: 'Error', finishedAt: ago(10) } },
        },
      ],
    });
    const d = diagnose(input({ object: deployment({ ready: 1 }), pods: [pod({ name: 'web-abc-2' }), p] }));
    expect(d.evidence[0]!.message).toBe(`back-off 40s; last exit 2 (Error) at ${ago(10)}; 4 restarts`);
    expect(d.next).toContain('kubectl logs web-abc-1 -n demo -c app --previous');
  });

  it('a container running but never ready is broken after the grace, progressing before', () => {
    const p = (readyAgo: number): KubeObject =>
      pod({
        name: 'web-abc-1',
        ready: false,
        readyAgo,
        conditions: [
          { type: 'PodScheduled', status: 'True' },
          {
            type: 'ContainersReady',
            status: 'False',
            reason: 'ContainersNotReady',
            message: 'containers with unready status: [app]',
            lastTransitionTime: ago(readyAgo),
          },
          { type: 'Ready', status: 'False', reason: 'ContainersNotReady', lastTransitionTime: ago(readyAgo) },
        ],
      });
    const late = diagnose(input({ object: deployment({ ready: 1 }), pods: [pod({ name: 'web-abc-2' }), p(60)] }));
    expect(late.link).toBe('containers-started');
    expect(late.summary).toContain('1 container running but not ready for 1m0s'.replace('1m0s', '1m'));
    expect(late.evidence.find((e) => e.source === 'condition')).toMatchObject({
      type: 'ContainersReady',
      reason: 'ContainersNotReady',
      message: 'containers with unready status: [app]',
    });
    expect(late.next).toEqual(['kubectl describe pod web-abc-1 -n demo', 'kubectl logs web-abc-1 -n demo -c app']);
    expect(diagnose(input({ object: deployment({ ready: 1 }), pods: [pod({ name: 'web-abc-2' }), p(10)] })).verdict).toBe('healthy');
  });

  it('Nodes that could not be read leave an unexplained not-ready Pod unknown', () => {
    const p = pod({ name: 'web-abc-1', ready: false, readyAgo: 120 });
    const d = diagnose(
      input({ object: deployment({ ready: 1 }), pods: [pod({ name: 'web-abc-2' }), p], nodes: { seen: false, why: 'forbidden: list nodes (403)' } }),
    );
    expect(d.verdict).toBe('unknown');
    expect(d.link).toBe('containers-started');
    expect(d.unseen).toEqual([{ what: 'Nodes', why: 'forbidden: list nodes (403)' }]);
  });
});
