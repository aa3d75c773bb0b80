/**
 * Starting and stopping the control-plane processes. Each runs detached, with its output in its own
 * log file, so it outlives the command that started it and can be stopped later by pid.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';

export interface ProcessSpec {
  /** Component name, used in messages and as the log file name. */
  name: string;
  command: string;
  args: string[];
  log: string;
  env?: Record<string, string>;
}

export interface Started {
  pid: number;
  /** Resolves with the exit code (or signal) if the process ends. */
  exited: Promise<string>;
}

export function startProcess(spec: ProcessSpec): Started {
  const fd = openSync(spec.log, 'a');
  const child = spawn(spec.command, spec.args, {
    detached: true,
    stdio: ['ignore', fd, fd],
    env: { ...process.env, ...spec.env },
  });
  closeSync(fd);
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => resolve(signal ? `signal ${signal}` : `code ${code}`));
    child.once('error', (err) => resolve(err.message));
  });
  if (child.pid === undefined) throw new Error(`${spec.name} could not be started (${spec.command}); log: ${spec.log}`);
  child.unref();
  return { pid: child.pid, exited };
}

export function isAlive(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
export async function stopPid(pid: number | undefined, graceMs = 10_000, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!pid || !isAlive(pid)) return;
  try {
    process.kill(pid, signal);
  } catch {
    return;
  }
  const deadline = Date.now() + graceMs;
  while (isAlive(pid) && Date.now() < deadline) await delay(50);
  if (isAlive(pid)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
    while (isAlive(pid)) await delay(20);
  }
}
