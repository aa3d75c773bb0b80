// What glibc's malloc holds in a running process, from its own books: gdb attaches for a moment
// and prints mallinfo2(), summed over every arena. `arena` is what malloc has from the system
// (brk heap and the threads' arenas), `inUse` what is allocated from it, `free` what it keeps
// free (fragmented, or not yet given back), `mmapped` the large blocks it maps one by one. MiB;
// undefined where gdb, glibc or its debug symbols are missing (Linux with glibc only).
import { execFile } from 'node:child_process';

export function mallocTotals(pid) {
  return new Promise((resolve) => {
    execFile('gdb', ['-p', String(pid), '-batch', '-ex', 'print mallinfo2()'], { timeout: 60_000 }, (err, stdout) => {
      const info = /\$1 = \{([^}]*)\}/.exec(stdout ?? '')?.[1];
      if (err || !info) return resolve(undefined);
      const field = (name) => Number(new RegExp(`\\b${name} = (\\d+)`).exec(info)?.[1] ?? Number.NaN) / 2 ** 20;
      const round = (n) => Math.round(n * 100) / 100;
      resolve({
        arena: round(field('arena')),
        inUse: round(field('uordblks') + field('hblkhd')),
        free: round(field('fordblks')),
        mmapped: round(field('hblkhd')),
      });
    });
  });
}
