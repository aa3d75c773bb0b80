// scripts/test-tools.sh, the first step of `npm test`: tmux and shellcheck present, nothing is done;
// missing, apt-get installs them where it may; otherwise one line says what to install and the
// tests do not start. Stand-in programs play the machine's, so nothing is installed.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { executable, tempRoot } from '../testing/stand-ins.js';

const run = promisify(execFile);
const SCRIPT = join(import.meta.dirname, '../../scripts/test-tools.sh');
/** A bin folder holding `programs` (stand-ins), `id` saying root, and a log of what apt-get was asked. */
function machine(programs: string[]): { bin: string; log: string } {
  const root = tempRoot('informer-trace-test-tools-');
  const bin = join(root, 'bin');
  const log = join(root, 'apt.log');
  mkdirSync(bin);
  executable(join(bin, 'id'), 'echo 0');
  writeFileSync(log, '');
  for (const p of programs) executable(join(bin, p), p === 'apt-get' ? `echo "$*" >> '${log}'` : 'exit 0');
  return { bin, log };
}

async function tools(bin: string): Promise<{ code: number; stderr: string }> {
  try {
    const r = await run('/bin/sh', [SCRIPT], { env: { PATH: bin } });
    return { code: 0, stderr: r.stderr };
  } catch (err) {
    const e = err as { code: number; stderr: string };
    return { code: e.code, stderr: e.stderr };
  }
}

describe('scripts/test-tools.sh', () => {
  it('does nothing when tmux and shellcheck are there', async () => {
    const m = machine(['tmux', 'shellcheck', 'apt-get']);
    expect(await tools(m.bin)).toEqual({ code: 0, stderr: '' });
    expect(readFileSync(m.log, 'utf8')).toBe('');
  });

  it('installs what is missing with apt-get', async () => {
    const m = machine(['tmux', 'apt-get']);
    const r = await tools(m.bin);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('test: installing shellcheck (apt-get)\n');
    expect(readFileSync(m.log, 'utf8')).toBe('update -qq\ninstall -y -qq shellcheck\n');
  });

  it('says in one line what to install when it cannot, and stops', async () => {
    const m = machine([]);
    const r = await tools(m.bin);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([
      'error: npm test needs tmux shellcheck on PATH (the terminal-UI tests run in tmux; actionlint checks the workflows with shellcheck), and could not install them: install them (e.g. sudo apt-get install -y tmux shellcheck) and run npm test again',
    ]);
  });
});
