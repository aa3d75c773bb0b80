// Preloaded (node --import) into a process the soak measures: on SIGUSR2 it writes what keeps the
// event loop alive — process.getActiveResourcesInfo() counted by type (Timeout, TCPSocketWrap,
// FSReqCallback, …) — and where its memory is (process.memoryUsage(), each V8 heap space's used
// bytes, and its resident memory by mapping: bench/lib/resident-parts.mjs) as one JSON object to
// $SOAK_RESOURCES_FILE. Nothing else changes.
import { writeFileSync } from 'node:fs';
import { getHeapSpaceStatistics } from 'node:v8';
import { residentParts } from './resident-parts.mjs';

const file = process.env.SOAK_RESOURCES_FILE;
if (file) {
  process.on('SIGUSR2', () => {
    const counts = {};
    for (const type of process.getActiveResourcesInfo()) counts[type] = (counts[type] ?? 0) + 1;
    const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, s.space_used_size]));
    const resident = residentParts();
    writeFileSync(file, JSON.stringify({ at: Date.now(), counts, memory: process.memoryUsage(), spaces, resident }));
  });
}
