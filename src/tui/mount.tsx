/**
 * The one way the commands put an ink app on the terminal: on the command's streams, without
 * patching the console, Ctrl+C handled by the command (the signal), at most 10 redraws a second.
 * Resolves when the app unmounts: the app quit, the signal aborted ('interrupt'), `endAfterMs`
 * passed, or `endWhen` settled.
 */
import { render } from 'ink';
import type { ReactElement } from 'react';
import type { CommandIO } from '../cli/io.js';

export interface MountOptions {
  signal: AbortSignal;
  /** Unmount by itself after this long (ms); 0 or absent = no limit. */
  endAfterMs?: number;
  /** Unmount `lingerMs` after this settles (the last frame stays readable a moment). */
  endWhen?: Promise<unknown>;
  lingerMs?: number;
}

/** Mounts `app`; returns 'interrupt' when the signal ended it, else 'ended'. */
export async function mountTui(app: ReactElement, io: CommandIO, options: MountOptions): Promise<'interrupt' | 'ended'> {
  let interrupted = false;
  const instance = render(app, {
    stdout: io.stdout,
    stderr: io.stderr,
    ...(io.stdin ? { stdin: io.stdin } : {}),
    exitOnCtrlC: false,
    patchConsole: false,
    maxFps: 10,
  });
  const onAbort = (): void => {
    interrupted = true;
    instance.unmount();
  };
  options.signal.addEventListener('abort', onAbort, { once: true });
  const timer = options.endAfterMs ? setTimeout(() => instance.unmount(), options.endAfterMs) : undefined;
  let linger: NodeJS.Timeout | undefined;
  void options.endWhen?.then(() => (linger = setTimeout(() => instance.unmount(), options.lingerMs ?? 300)));
  try {
    await instance.waitUntilExit();
  } finally {
    clearTimeout(timer);
    clearTimeout(linger);
    options.signal.removeEventListener('abort', onAbort);
    instance.cleanup();
  }
  return interrupted ? 'interrupt' : 'ended';
}
