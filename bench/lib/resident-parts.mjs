// Where a Linux process's resident memory is, from /proc/PID/smaps, in KiB: the node executable's
// own pages (code and read-only data read from the file), other files, the main thread's malloc
// heap ([heap], grown with brk), and the other anonymous mappings (V8's heap pages, the other
// threads' malloc arenas, mmap'd allocations, stacks).
import { readFileSync } from 'node:fs';

export function residentParts(pid = 'self') {
  const exe = pid === 'self' ? process.execPath : readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0];
  const parts = { 'node executable': 0, 'other files': 0, '[heap]': 0, 'other anonymous': 0 };
  let part = 'other anonymous';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const mapping = line.match(/^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/);
    if (mapping) {
      const name = mapping[1];
      part = name === exe ? 'node executable' : name.startsWith('/') ? 'other files' : name === '[heap]' ? '[heap]' : 'other anonymous';
      continue;
    }
    const rss = line.match(/^Rss:\s+(\d+) kB/);
    if (rss) parts[part] += Number(rss[1]);
  }
  return parts;
}
