/**
 * Stand-in programs for the tests of the shell scripts (scripts/with-node.sh, scripts/test-tools.sh):
 * executables written into temporary folders that the tests put on PATH instead of the machine's,
 * and removed after the file's tests.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/** A shell script at `path` running `body`. */
export function executable(path: string, body: string): void {
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
}

const roots: string[] = [];
// Registered when a test file imports this module: after its tests, its folders go.
afterAll(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A temporary folder, removed once the test file's tests have run. */
export function tempRoot(prefix: string): string {
  const root = mkdtempSync(join(tmpdir(), prefix));
  roots.push(root);
  return root;
}
