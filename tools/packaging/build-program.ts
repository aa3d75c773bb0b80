import { bundleProgram } from './bundle.js';
import { repoRoot } from '../root.js';

const root = repoRoot;
const size = (bytes: number): string => (bytes < 1024 * 1024 ? `${Math.ceil(bytes / 1024)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`);

bundleProgram(root).then(
  (r) => {
    const chunks = r.chunks.reduce((n, c) => n + c.bytes, 0);
    process.stderr.write(`build: ${r.file.slice(root.length + 1)} (${size(r.bytes)}) and ${r.chunks.length} chunks beside it (${size(chunks)})\n`);
  },
  (err: unknown) => {
    process.stderr.write(`build: error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
