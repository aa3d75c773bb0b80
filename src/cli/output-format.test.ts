import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../tools/testing/cli.js';
import { createInformerTraceProgram } from '../commands/informer-trace.js';
import { createLeaseWatchProgram } from '../commands/lease-watch.js';
import { UsageError } from '../errors.js';
import { chooseOutput, outputOption } from './output-format.js';

const SINKS = { tui: 1, table: 2, json: 3 };
const terminal = { stdout: Object.assign(new PassThrough(), { isTTY: true }), env: {} };
const pipe = { stdout: new PassThrough(), env: {} };

describe('chooseOutput', () => {
  it('without -o: tui on a terminal, the text format otherwise (in CI too)', () => {
    expect(chooseOutput(SINKS, undefined, 'table', terminal)).toBe('tui');
    expect(chooseOutput(SINKS, undefined, 'table', pipe)).toBe('table');
    expect(chooseOutput(SINKS, undefined, 'table', { ...terminal, env: { CI: 'true' } })).toBe('table');
    expect(chooseOutput<'text' | 'json'>({ text: 1, json: 2 }, undefined, 'text', terminal)).toBe('text');
  });

  it('-o tui without a terminal: one line saying so; a format the command lacks: the choices', () => {
    expect(() => chooseOutput(SINKS, 'tui', 'table', pipe)).toThrow(
      new UsageError('-o tui needs a terminal: stdout is not one', { hint: 'use -o table, -o json or -o ndjson when piping or redirecting' }),
    );
    expect(chooseOutput(SINKS, 'tui', 'table', terminal)).toBe('tui');
    expect(() => chooseOutput(SINKS, 'yaml' as 'json', 'table', pipe)).toThrow(new UsageError('-o yaml: choose tui, table or json'));
  });

  it("offers the sinks' keys, in their order", () => {
    expect(outputOption(SINKS, 'output').argChoices).toEqual(['tui', 'table', 'json']);
  });
});

describe('-o tui without a terminal, every command with a TUI', () => {
  const NO_CLUSTER = ['--kubeconfig', '/nonexistent/kubeconfig'];
  it.each([
    [createInformerTraceProgram, ['deploy/web', '--restart']],
    [createInformerTraceProgram, ['cache', 'pods']],
    [createInformerTraceProgram, ['queues', '--metrics', 'https://h:1/metrics']],
    [createInformerTraceProgram, ['top']],
    [createLeaseWatchProgram, []],
  ] as const)('%#: one line, exit 2, nothing sent', async (program, argv) => {
    const r = await runCli(program, [...argv, '-o', 'tui', ...NO_CLUSTER], { CI: 'true' });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toBe('error: -o tui needs a terminal: stdout is not one');
  });
});
