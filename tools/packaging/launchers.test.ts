import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { execNodeLine, LEASE_WATCH_WRAPPER, SCRIPT_LAUNCHER } from './launchers.js';
import { PLUGIN_NODE_ENV, PLUGIN_NODE_FLAGS } from './node-flags.js';

const run = promisify(execFile);
const made: string[] = [];

function temp(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), `informer-trace-${prefix}`));
  made.push(d);
  return d;
}

afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** An unpacked script-build archive, with a stand-in for the bundle that reports how it was run. */
function unpacked(packageType: 'module' | 'commonjs'): string {
  const dir = temp('launchers-');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: packageType }));
  writeFileSync(join(dir, 'kubectl-informer_trace'), SCRIPT_LAUNCHER);
  writeFileSync(join(dir, 'kubectl-lease_watch'), LEASE_WATCH_WRAPPER);
  writeFileSync(
    join(dir, 'informer-trace.mjs'),
    "process.stdout.write(JSON.stringify({ program: process.env.INFORMER_TRACE_PROGRAM ?? 'informer-trace', args: process.argv.slice(2), execArgv: process.execArgv, arenas: process.env.MALLOC_ARENA_MAX }));\n",
  );
  chmodSync(join(dir, 'kubectl-informer_trace'), 0o755);
  chmodSync(join(dir, 'kubectl-lease_watch'), 0o755);
  return dir;
}

/** PATH with this Node and readlink, and nothing else. */
function path(): string {
  const tools = temp('tools-');
  const readlink = ['/usr/bin/readlink', '/bin/readlink'].find((p) => existsSync(p))!;
  symlinkSync(readlink, join(tools, 'readlink'));
  return `${tools}:${dirname(process.execPath)}`;
}

describe('the files beside the program in an archive', () => {
  it('the script launcher runs the bundle beside it whatever a package.json above says, passing the arguments', async () => {
    for (const type of ['module', 'commonjs'] as const) {
      const dir = unpacked(type);
      const { stdout } = await run(join(dir, 'kubectl-informer_trace'), ['check', '--help'], { env: { PATH: path() } });
      expect(JSON.parse(stdout)).toEqual({ program: 'informer-trace', args: ['check', '--help'], execArgv: PLUGIN_NODE_FLAGS, arenas: '2' });
    }
    // A value of the user's own is kept.
    const { stdout } = await run(join(unpacked('module'), 'kubectl-informer_trace'), [], { env: { PATH: path(), MALLOC_ARENA_MAX: '4' } });
    expect(JSON.parse(stdout)).toMatchObject({ arenas: '4' });
  });

  it('kubectl-lease_watch runs its sibling as lease-watch, directly and through chains of symlinks as krew makes', async () => {
    const dir = unpacked('commonjs');
    const env = { PATH: path() };
    expect(JSON.parse((await run(join(dir, 'kubectl-lease_watch'), ['-o', 'json'], { env })).stdout)).toEqual({
      program: 'lease-watch',
      args: ['-o', 'json'],
      execArgv: PLUGIN_NODE_FLAGS,
      arenas: '2',
    });
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    symlinkSync(join(dir, 'kubectl-lease_watch'), join(bin, 'relay'));
    symlinkSync('relay', join(bin, 'kubectl-lease_watch'));
    expect(JSON.parse((await run(join(bin, 'kubectl-lease_watch'), ['x y'], { env })).stdout)).toEqual({
      program: 'lease-watch',
      args: ['x y'],
      execArgv: PLUGIN_NODE_FLAGS,
      arenas: '2',
    });
  });

  it('the script launcher says what it needs when there is no node on PATH', async () => {
    const dir = unpacked('module');
    const tools = temp('no-node-');
    const err = await run(join(dir, 'kubectl-informer_trace'), ['--help'], { env: { PATH: tools } }).catch((e: { code: number; stderr: string }) => e);
    expect(err).toMatchObject({ code: 2 });
    expect((err as { stderr: string }).stderr).toContain('needs Node.js >= 22.19 on PATH');
  });
});

describe("the npm package's bin files", () => {
  const root = join(dirname(new URL(import.meta.url).pathname), '..', '..');
  for (const name of ['kubectl-informer_trace', 'kubectl-lease_watch']) {
    it(`${name} execs node with the plugin's Node flags and environment on itself`, async () => {
      const lines = readFileSync(join(root, 'bin', name), 'utf8').split('\n');
      expect(lines[0]).toBe('#!/bin/sh');
      expect(lines[1]).toBe(execNodeLine(name, '22.19'));
      // The same file run by sh: node gets the flags and the environment (a variable the user set
      // kept); a stand-in node shows what it was given.
      const tools = temp('fake-node-');
      writeFileSync(join(tools, 'node'), '#!/bin/sh\nprintf "%s\\n" "MALLOC_ARENA_MAX=$MALLOC_ARENA_MAX" "$@"\n');
      chmodSync(join(tools, 'node'), 0o755);
      const { stdout } = await run('/bin/sh', [join(root, 'bin', name), 'a b', '--flag'], { env: { PATH: tools } });
      const env = Object.entries(PLUGIN_NODE_ENV).map(([k, v]) => `${k}=${v}`);
      expect(stdout.trim().split('\n')).toEqual([...env, ...PLUGIN_NODE_FLAGS, join(root, 'bin', name), 'a b', '--flag']);
      const own = await run('/bin/sh', [join(root, 'bin', name)], { env: { PATH: tools, MALLOC_ARENA_MAX: '8' } });
      expect(own.stdout.split('\n')[0]).toBe('MALLOC_ARENA_MAX=8');
    });
  }
});
