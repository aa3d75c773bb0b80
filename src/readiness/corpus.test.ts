/**
 * The engine over the whole readiness corpus (tools/readiness/corpus.ts): the targets of
 * docs/readiness.md, "Measured". bench/readiness.mjs sets kstatus beside it.
 */
import { describe, expect, it } from 'vitest';
import { agreement, readinessCorpus } from '../../tools/readiness/index.js';
import { compileCel } from './cel-compile.js';
import { createReadiness } from './engine.js';

const corpus = readinessCorpus();
const all = [...corpus.library, ...corpus.captured];
const engine = createReadiness({}, compileCel);
const judged = all.map((e) => engine.judge(e.object).status);

describe('the readiness corpus', () => {
  it('holds the library examples and objects captured from real runs', () => {
    expect(corpus.library.length).toBeGreaterThan(400);
    expect(corpus.captured.length).toBeGreaterThan(20);
  });

  it('never calls Current an object whose own status says failing, aborted or degraded', () => {
    const wrong = all
      .filter((e, i) => e.expected === 'Failed' && judged[i] === 'Current')
      .map((e) => `${e.origin} ${e.object.kind}/${e.object.metadata?.name}: ${e.why}`);
    expect(wrong).toEqual([]);
  });

  it('calls Current at most 1% of the objects still in progress or suspended', () => {
    const a = agreement(all, judged);
    expect(a.pendingCalledCurrent / a.pending).toBeLessThanOrEqual(0.01);
  });

  it('agrees on Current-or-not with at least 95% of the expected statuses, on the captured objects alone too', () => {
    expect(agreement(all, judged).currentAgree / all.length).toBeGreaterThanOrEqual(0.95);
    const captured = agreement(corpus.captured, judged.slice(corpus.library.length));
    expect(captured.currentAgree / captured.objects).toBeGreaterThanOrEqual(0.95);
  });
});
