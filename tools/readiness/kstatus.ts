/**
 * kstatus's verdict on Kubernetes objects (sigs.k8s.io/cli-utils), to compare our readiness engine
 * against: the Go fixture test/fixtures/kstatus, built once into the cache through its build.sh (the
 * first time downloads its modules from the Go module proxy, then it is found by its sources' hash),
 * run once with every object as a line of NDJSON on stdin.
 */
import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../root.js';

/** One object's verdict: kstatus's status and message, or status "Error" when it could not judge it. */
export interface KstatusResult {
  status: string;
  message: string;
}

let built: Promise<string> | undefined;

/** Builds the fixture (once per process) and resolves with the binary's path: build.sh's last line. */
function kstatusBinary(): Promise<string> {
  built ??= promisify(execFile)('bash', [join(repoRoot, 'test', 'fixtures', 'kstatus', 'build.sh')], { maxBuffer: 1 << 20 }).then(
    ({ stdout }) => stdout.trim().split('\n').pop()!,
    (err: unknown) => {
      built = undefined;
      const stderr = (err as { stderr?: string }).stderr;
      throw new Error(`building the kstatus fixture failed${stderr ? `: ${stderr.trim()}` : ''}`, { cause: err });
    },
  );
  return built;
}

/** kstatus's verdict on each object, in order. */
export async function kstatusOf(objects: object[]): Promise<{ status: string; message: string }[]> {
  if (objects.length === 0) return [];
  const binary = await kstatusBinary();
  const stdout = await new Promise<string>((resolve, reject) => {
    const child = spawn(binary, [], { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out).toString('utf8'));
      else reject(new Error(`kstatus exited with ${code}: ${Buffer.concat(err).toString('utf8').trim()}`));
    });
    // A write error (EPIPE when the program dies early) is reported by its exit instead.
    child.stdin.on('error', () => {});
    child.stdin.end(objects.map((o) => `${JSON.stringify(o)}\n`).join(''));
  });
  const results = stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as KstatusResult);
  if (results.length !== objects.length) throw new Error(`kstatus answered ${results.length} lines for ${objects.length} objects`);
  return results;
}
