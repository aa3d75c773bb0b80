// One child process of the harness: its stdout read a line at a time as it comes, the tail of its
// stderr kept (and echoed, prefixed by its label, when verbose), killed after timeoutMs.
import { spawn } from 'node:child_process';

/**
 * Spawns cmd; onLine sees each non-empty stdout line; onSpawn gets the child (to kill it on
 * Ctrl-C). Resolves with the exit code (or the signal that ended it) and the stderr tail.
 */
export function spawnLines(cmd, argv, { env, onLine, onSpawn, timeoutMs, verbose = false, label = cmd } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    onSpawn?.(child);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d) => {
      out += d;
      let nl;
      while ((nl = out.indexOf('\n')) !== -1) {
        const line = out.slice(0, nl);
        out = out.slice(nl + 1);
        if (line.trim()) onLine?.(line);
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d) => {
      err += d;
      if (err.length > 50_000) err = err.slice(-20_000);
      if (verbose) process.stderr.write(d.replace(/^/gm, `  ${label}: `));
    });
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? signal, stderr: err });
    });
  });
}
