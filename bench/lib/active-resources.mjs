// Preloaded (node --import) into a process the soak measures: on SIGUSR2 it writes what keeps the
// event loop alive — process.getActiveResourcesInfo() counted by type (Timeout, TCPSocketWrap,
// FSReqCallback, …) — as one JSON object to $SOAK_RESOURCES_FILE. Nothing else changes.
import { writeFileSync } from 'node:fs';

const file = process.env.SOAK_RESOURCES_FILE;
if (file) {
  process.on('SIGUSR2', () => {
    const counts = {};
    for (const type of process.getActiveResourcesInfo()) counts[type] = (counts[type] ?? 0) + 1;
    writeFileSync(file, JSON.stringify({ at: Date.now(), counts }));
  });
}
