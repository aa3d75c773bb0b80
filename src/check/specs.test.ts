import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { readCheckSpecs } from './specs.js';
import type { MetricsAccess } from './types.js';

const access: MetricsAccess = { insecureSkipTlsVerify: false, kubeconfigCredentials: false, token: undefined, timeoutMs: 5_000 };
const LEASE = 'checks:\n  - kind: lease\n    lease: demo/web\n    maxRenewAge: 1s\n';

function refusal(run: () => unknown): UsageError {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return err as UsageError;
  }
  throw new Error('expected the checks to be refused');
}

describe('the checks of one run', () => {
  it("puts the flags' checks first, then the file's", () => {
    const specs = readCheckSpecs({ flags: { restart: ['deploy/web'] }, config: { file: 'health.yaml', text: LEASE }, namespace: 'demo', access });
    expect(specs.map((s) => `${s.name} (${s.origin.source})`)).toEqual(['rollout deploy/web in demo (flags)', 'lease demo/web (health.yaml)']);
  });

  it('refuses a name the flags and the file share, and one two flags share', () => {
    const shared = refusal(() =>
      readCheckSpecs({ flags: { lease: ['demo/web'], maxRenewAge: '1s' }, config: { file: 'health.yaml', text: LEASE }, namespace: undefined, access }),
    );
    expect(shared.message).toBe('two checks are named "lease demo/web"');
    expect(shared.hint).toMatch(/distinct name/);
    const twice = refusal(() => readCheckSpecs({ flags: { restart: ['deploy/web', 'deploy/web'] }, namespace: 'demo', access }));
    expect(twice.message).toBe('two checks are named "rollout deploy/web in demo"');
  });

  it("reports a name used twice in the file with the file's other problems, in file order", () => {
    const text = `${LEASE}  - kind: lease\n    lease: demo/web\n    maxTransitions: 1\n  - kind: rollout\n    target: web\n`;
    const err = refusal(() => readCheckSpecs({ flags: {}, config: { file: 'health.yaml', text }, namespace: undefined, access }));
    expect(err.message.split('\n')).toEqual([
      'health.yaml is not a valid check config (2 problems):',
      '  health.yaml:5:5: checks[1].name: "lease demo/web" is also the name of checks[0]: give one of them a different name',
      '  health.yaml:9:13: checks[2].target: "web" is not TYPE/NAME (e.g. deploy/web, sts/db)',
    ]);
  });
});
