import { describe, expect, it } from 'vitest';
import { runCli } from '../testing/cli.js';
import { createInformerTraceProgram } from './informer-trace.js';

/** Flags are checked before any connection: a kubeconfig that does not exist is never read. */
const NO_CLUSTER = ['--kubeconfig', '/nonexistent/kubeconfig'];

describe('cache flags', () => {
  for (const [args, message] of [
    [['--watch', '-o', 'table'], /--watch streams deltas: use it with -o ndjson \(-o table prints the cache once\)/],
    [['--watch'], /--watch streams deltas: use it with -o ndjson/],
    [['--verify-every', '10s'], /--verify-every compares while watching: add --watch or --for DURATION/],
    [['--verify-every', '0s', '--watch', '-o', 'ndjson'], /--verify-every must be more than 0/],
    [['--resync', 'soon'], /--resync: /],
  ] as const) {
    it(`${args.join(' ')}: one error line, exit 2`, async () => {
      const r = await runCli(createInformerTraceProgram, ['cache', 'configmaps', ...args, ...NO_CLUSTER]);
      expect(r.code).toBe(2);
      const errors = r.stderr.split('\n').filter((l) => l.startsWith('error:'));
      expect(errors, r.stderr).toHaveLength(1);
      expect(errors[0]).toMatch(message);
      expect(r.stderr).not.toMatch(/^\s+at /m);
      expect(r.stdout).toBe('');
    });
  }
});
