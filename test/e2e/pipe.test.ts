/**
 * The real binaries writing into a shell pipe whose reader has gone away, as `… | head -1` leaves
 * it: the command ends without a word on stderr and with status 141, what a shell reports for
 * kubectl (killed by SIGPIPE) in the same place. Each write that must fail is ordered after the
 * reader closed its end (a FIFO, or the reader's own word on stderr), so it fails every time.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminKube, cluster, createNamespace, deleteNamespace, uniqueName } from './helpers.js';

const root = resolve(import.meta.dirname, '../..');
const tmp = mkdtempSync(join(tmpdir(), 'it-pipe-'));

interface ShellResult {
  /** Each pipeline stage's status, as bash's PIPESTATUS. */
  statuses: number[];
  stderr: string;
}

function quote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The plugin's command line for the shell. */
function plugin(name: string, args: string[]): string {
  return [join(root, 'bin', name), ...args].map(quote).join(' ');
}

/** Runs `WRITER | READER` in bash, and reports the stages' statuses and everything on stderr. */
function pipeline(writer: string, reader: string, onStderr?: (text: string) => void): Promise<ShellResult> {
  const script = `${writer} | ${reader}; echo "PIPESTATUS \${PIPESTATUS[*]}" >&2`;
  const child = spawn('bash', ['-c', script], {
    cwd: root,
    env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, KUBECONFIG: cluster().kubeconfigPath, CI: 'true' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    onStderr?.(stderr);
  });
  return new Promise((resolvePromise, reject) => {
    child.on('error', reject);
    child.on('close', () => {
      const m = /^PIPESTATUS (.*)$/m.exec(stderr);
      if (!m) return reject(new Error(`no PIPESTATUS in: ${stderr}`));
      resolvePromise({ statuses: m[1]!.split(' ').map(Number), stderr: stderr.replace(m[0], '').trim() });
    });
  });
}

describe('output into a closed pipe', () => {
  const kube = adminKube();
  const ns = uniqueName('it-pipe');

  beforeAll(() => createNamespace(kube, ns));
  afterAll(async () => {
    rmSync(tmp, { recursive: true, force: true });
    await deleteNamespace(kube, ns);
  });

  it('cache --watch -o ndjson | head -1: the next delta after head left ends it, status 141, stderr quiet', async () => {
    let readerDone!: () => void;
    const readerGone = new Promise<void>((r) => (readerDone = r));
    // The reader takes one line, closes the pipe, and says so; the plugin only notices at its next write.
    const result = pipeline(
      plugin('kubectl-informer_trace', ['cache', 'configmaps', '-n', ns, '--watch', '-o', 'ndjson']),
      `{ head -1 > /dev/null; exec 0<&-; echo READER-GONE >&2; }`,
      (text) => text.includes('READER-GONE') && readerDone(),
    );
    await readerGone;
    // A change the informer streams: its delta line is the write that fails.
    await kube.client.json(`/api/v1/namespaces/${ns}/configmaps`, { method: 'POST', body: { metadata: { name: 'after-head' } } });
    const r = await result;
    expect(r.statuses).toEqual([141, 0]);
    const stderr = r.stderr.replace('READER-GONE', '');
    expect(stderr).not.toMatch(/EPIPE|^\s+at /m);
    expect(stderr).not.toMatch(/error/i);
  });

  for (const [name, args] of [
    ['kubectl-informer_trace', ['cache', '--help']],
    ['kubectl-lease_watch', ['--help']],
  ] as const) {
    it(`${name} ${args.join(' ')}: status 141, nothing on stderr`, async () => {
      // The reader closes its end, then tells the writer (through a FIFO) to start.
      const fifo = quote(join(tmp, `${name}.fifo`));
      const r = await pipeline(`mkfifo ${fifo}; { read -r _ < ${fifo}; exec ${plugin(name, [...args])}; }`, `{ exec 0<&-; echo closed > ${fifo}; }`);
      expect(r.stderr).toBe('');
      expect(r.statuses).toEqual([141, 0]);
    });
  }
});
