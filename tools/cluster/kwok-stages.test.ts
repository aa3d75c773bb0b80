import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { kwokStagesYaml, SIMULATE_ANNOTATION } from './kwok-stages.js';

interface Stage {
  metadata: { name: string };
  spec: {
    selector: { matchExpressions: { key: string; operator: string; values?: string[] }[] };
    next: { statusTemplate?: string; event?: { reason: string } };
  };
}

/** A stage folder holding kwok's pod-ready stage as kwok ships it (trimmed to its selector). */
function stagesDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kwok-stages-'));
  mkdirSync(join(dir, 'pod', 'general'), { recursive: true });
  writeFileSync(
    join(dir, 'pod', 'general', 'pod-ready.yaml'),
    `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-ready
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.status.phase'
      operator: 'In'
      values:
      - 'Pending'
  next:
    statusTemplate: |
      phase: Running
      startTime: {{ Now | Quote }}
`,
  );
  return dir;
}

function stages(): Stage[] {
  const dir = stagesDir();
  try {
    return parseAllDocuments(kwokStagesYaml(dir)).map((d) => d.toJS() as Stage);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const key = `.metadata.annotations["${SIMULATE_ANNOTATION}"]`;

describe('kwokStagesYaml', () => {
  it("keeps kwok's pod-ready stage but leaves Pods with the simulate annotation to ours", () => {
    const ready = stages().find((s) => s.metadata.name === 'pod-ready')!;
    expect(ready.spec.selector.matchExpressions).toEqual([
      { key: '.status.phase', operator: 'In', values: ['Pending'] },
      { key, operator: 'DoesNotExist' },
    ]);
    expect(ready.spec.next.statusTemplate).toBe('phase: Running\nstartTime: {{ Now | Quote }}\n');
  });

  it('restores readiness only for Running Pods whose containers are ready but the Pod is not', () => {
    const again = stages().find((s) => s.metadata.name === 'pod-ready-again')!;
    const byKey = Object.fromEntries(again.spec.selector.matchExpressions.map((m) => [m.key, m]));
    expect(byKey['.status.phase']!.values).toEqual(['Running']);
    expect(byKey['.status.conditions.[] | select( .type == "Ready" ) | .status']!.values).toEqual(['False']);
    expect(byKey['.status.conditions.[] | select( .type == "ContainersReady" ) | .status']!.values).toEqual(['True']);
    expect(byKey[key]!.operator).toBe('DoesNotExist');
    expect(again.spec.next.statusTemplate).toContain('type: Ready');
  });

  it('selects each simulated failure by the annotation value', () => {
    const all = stages();
    const value = (name: string): string[] | undefined =>
      all.find((s) => s.metadata.name === name)!.spec.selector.matchExpressions.find((m) => m.key === key)!.values;
    expect(value('pod-simulate-never-ready')).toEqual(['never-ready']);
    expect(value('pod-simulate-err-image-pull')).toEqual(['image-pull-error']);
    expect(value('pod-simulate-image-pull-backoff')).toEqual(['image-pull-error']);
    expect(value('pod-simulate-fail')).toEqual(['fail']);
    expect(all.find((s) => s.metadata.name === 'pod-simulate-image-pull-backoff')!.spec.next.statusTemplate).toContain('reason: ImagePullBackOff');
  });

  it('fails with the folder named when no kwok stage file is there', () => {
    expect(() => kwokStagesYaml(join(tmpdir(), 'no-such-kwok-stages'))).toThrow(/no kwok stage files under .*no-such-kwok-stages/);
  });
});
