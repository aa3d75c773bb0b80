// Preloaded (node --import) into a process the soak measures: on SIGUSR2 it writes what keeps the
// event loop alive — process.getActiveResourcesInfo() counted by type (Timeout, TCPSocketWrap,
// FSReqCallback, …) — and where its memory is (process.memoryUsage(), and each V8 heap space's
// used bytes) as one JSON object to $SOAK_RESOURCES_FILE. Nothing else changes.
import { writeFileSync } from 'node:fs';
import { getHeapSpaceStatistics } from 'node:v8';

const file = process.env.SOAK_RESOURCES_FILE;
if (file) {
  process.on('SIGUSR2', () => {
    const counts = {};
    for (const type of process.getActiveResourcesInfo()) counts[type] = (counts[type] ?? 0) + 1;
    const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, s.space_used_size]));
    writeFileSync(file, JSON.stringify({ at: Date.now(), counts, memory: process.memoryUsage(), spaces }));
  });
}
