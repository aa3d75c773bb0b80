/**
 * `top`'s bad input, in-process: every flag is checked before any request (the kubeconfig does not
 * exist, so a request would fail differently), one clear line and exit 2 each. The command against
 * a real control plane is in test/e2e/top.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../tools/testing/cli.js';
import { createInformerTraceProgram } from './informer-trace.js';
import { createLeaseWatchProgram } from './lease-watch.js';

const run = (argv: string[]) => runCli(createInformerTraceProgram, ['top', ...argv, '--kubeconfig', '/nonexistent/kubeconfig'], { CI: 'true' });

describe('top: bad input', () => {
  it.each([
    [['-o', 'tui'], 'error: -o tui needs a terminal: stdout is not one'],
    [['--interval', '0'], 'error: --interval must be a positive duration, e.g. 2s'],
    [['--for', 'soon'], '--for'],
    [['--controller', 'Kube Controller'], 'error: --controller "Kube Controller" is not a component or Lease name'],
    [['--metrics', 'ftp://x/metrics'], 'error: --metrics "ftp://x/metrics": ftp:// is not supported, only http:// and https://'],
    [['--metrics', 'kube-scheduler=pod/a/b/c'], 'error: --metrics "pod/a/b/c": expected pod/NAMESPACE/NAME[:PORT]'],
  ])('%j: one line, exit 2, nothing sent', async (argv, line) => {
    const r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toContain(line);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(r.stderr).not.toContain('nonexistent');
  });

  it('is reachable as `kubectl lease-watch top` too, with the same help', async () => {
    const a = await runCli(createLeaseWatchProgram, ['top', '--help'], { CI: 'true' });
    const b = await runCli(createInformerTraceProgram, ['top', '--help'], { CI: 'true' });
    expect(a.code).toBe(0);
    expect(a.stdout).toContain('States, worst first: no leader, unreachable, stuck, retrying, backlog, ok.');
    expect(a.stdout.replace(/^Usage: .*$/m, '')).toBe(b.stdout.replace(/^Usage: .*$/m, ''));
  });
});
