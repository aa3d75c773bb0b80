/**
 * The .tar.gz archives krew downloads: flat, with the executables 0755 and the rest 0644, no owner
 * names, and one fixed mtime ($SOURCE_DATE_EPOCH when set), so the same inputs give the same bytes.
 */
import { createHash } from 'node:crypto';
import { chmodSync, createReadStream } from 'node:fs';
import { join } from 'node:path';
import { create } from 'tar';

export const EXECUTABLES = new Set(['kubectl-informer_trace', 'kubectl-lease_watch']);

function mtime(): Date {
  const epoch = Number(process.env.SOURCE_DATE_EPOCH);
  return Number.isFinite(epoch) && epoch > 0 ? new Date(epoch * 1000) : new Date(Date.UTC(2026, 0, 1));
}

export async function makeArchive(stageDir: string, files: readonly string[], out: string): Promise<void> {
  for (const f of files) chmodSync(join(stageDir, f), EXECUTABLES.has(f) ? 0o755 : 0o644);
  await create({ gzip: { level: 9 }, file: out, cwd: stageDir, portable: true, mtime: mtime(), noDirRecurse: true }, [...files]);
}

export function sha256File(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(file)
      .on('data', (d) => hash.update(d))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}
