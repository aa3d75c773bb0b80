import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { planTrace, type TraceOptions } from './trace.js';

const base: TraceOptions = { timeout: '2m', coalesce: '50ms', settle: '3s', syncTimeout: '60s' };
const io = { stdout: new PassThrough(), env: {} };

describe('planTrace: the --apply trigger', () => {
  it('plans an apply of the files given with -f, their subfolders with -R', () => {
    expect(planTrace({ ...base, apply: true, filename: ['web.yaml'] }, io).trigger).toEqual({ kind: 'apply', files: ['web.yaml'], recursive: false });
    expect(planTrace({ ...base, apply: true, filename: ['-'] }, io).trigger).toEqual({ kind: 'apply', files: ['-'], recursive: false });
    expect(planTrace({ ...base, apply: true, filename: ['app/', 'crs.yaml'], recursive: true }, io).trigger).toEqual({
      kind: 'apply',
      files: ['app/', 'crs.yaml'],
      recursive: true,
    });
    expect(planTrace({ ...base, apply: true, filename: ['app/'], failFast: true }, io).failFast).toBe(true);
  });

  it('plans a watch of the objects of -f: the next change someone else makes to them', () => {
    expect(planTrace({ ...base, watch: true, filename: ['release/'], recursive: true }, io).trigger).toEqual({
      kind: 'watch',
      files: ['release/'],
      recursive: true,
    });
    expect(planTrace({ ...base, watch: true }, io).trigger).toEqual({ kind: 'watch' });
  });

  it('plans a watch of the objects -l selects', () => {
    expect(planTrace({ ...base, watch: true, selector: 'app.kubernetes.io/instance=shop' }, io).trigger).toEqual({
      kind: 'watch',
      selector: 'app.kubernetes.io/instance=shop',
    });
  });

  it.each<[Partial<TraceOptions>, string]>([
    [{ apply: true }, '--apply needs the objects: -f FILE or -f DIR (repeatable), or -f - for stdin'],
    [{ apply: true, filename: [] }, '--apply needs the objects: -f FILE or -f DIR (repeatable), or -f - for stdin'],
    [{ filename: ['web.yaml'] }, '-f gives the objects of --apply (or of --watch); add --apply to apply them, or --watch to trace the next change to them'],
    [{ recursive: true }, '-R reads the folders of -f; it goes with --apply -f or --watch -f'],
    [{ apply: true, filename: ['web.yaml'], restart: true }, 'choose one trigger; got --restart and --apply'],
    [{ apply: true, filename: ['web.yaml'], watch: true }, 'choose one trigger; got --apply and --watch'],
    [{ selector: 'app=web' }, '-l picks the objects of --watch; add --watch to trace the next change to the objects it selects'],
    [{ watch: true, selector: 'app=web', filename: ['web.yaml'] }, 'give the objects to watch either with -f or with -l, not both'],
    [{ watch: true, selector: ' ' }, '-l needs a label selector, e.g. -l app.kubernetes.io/instance=shop'],
  ])('refuses %j', (opts, message) => {
    expect(() => planTrace({ ...base, ...opts }, io)).toThrow(new UsageError(message));
  });
});

describe('planTrace: --stall', () => {
  it('is off unless given, and a positive duration when given', () => {
    expect(planTrace(base, io).stallMs).toBeUndefined();
    expect(planTrace({ ...base, stall: '20s' }, io).stallMs).toBe(20_000);
  });

  it.each<[string, string]>([
    ['0', '--stall must be a positive duration, e.g. 20s'],
    ['soon', '--stall: invalid duration "soon": expected a number with a unit, e.g. 500ms, 30s, 2m, 1h'],
  ])('refuses --stall %s', (stall, message) => {
    expect(() => planTrace({ ...base, stall }, io)).toThrow(new UsageError(message));
  });
});
