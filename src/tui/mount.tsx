/**
 * The one way the commands put a TUI on the terminal (runTui), and the screen model of every live
 * view.
 *
 * Screen model: full screen on the terminal's alternate screen buffer, as htop, k9s and less do.
 * The views are dashboards that change in place (a tree whose Pods turn ready, a lease table whose
 * ages tick, queue depths) rather than a log that only grows, and a person scrolls and filters them
 * with keys; on the alternate screen nothing they draw ever reaches the scrollback, so no frame can
 * be duplicated there, whatever the terminal does on a resize. Each frame is exactly the terminal's
 * rows × columns (the apps size themselves from useWindowSize, which re-renders on SIGWINCH, and
 * cut every line to the width; see frame.tsx), so ink does not take its "taller than the terminal"
 * path, which clears and rewrites the whole screen and on the normal screen pushes a copy of the
 * frame into the scrollback each time. (Right after the terminal shrinks, ink redraws the previous
 * frame once before the view re-renders at the new size; on the alternate screen that reaches no
 * scrollback either.) What must outlive the screen — the final summary — is printed by the caller
 * after this resolves, on the normal screen, once.
 *
 * Ink enters the alternate screen and hides the cursor on mount, and leaves it and shows the cursor
 * on unmount, which every ending goes through: q and Ctrl+C (the apps exit), the signal (SIGINT,
 * SIGTERM: the command aborts it), `endAfterMs`, `endWhen`, an error thrown while rendering, and
 * process exit (ink's signal-exit hook). Ink is told it is interactive whenever stdout is a
 * terminal: its own guess says no when CI is set, which would print only a last frame at the end.
 *
 * Lines written to stderr while the screen is up (a warning from an informer) would land on top of
 * the frame and vanish with the alternate screen; they are held and written after it is left.
 *
 * Ctrl+C is handled by the command (the signal) or, in raw mode, by the app; at most 10 redraws a
 * second. Resolves when the app unmounts: the app quit (q, or Ctrl+C in raw mode: what it told its
 * onExit), the signal aborted ('interrupt'), `endAfterMs` passed or `endWhen` settled (after
 * `lingerMs`): 'ended'.
 */
import { render } from 'ink';
import type { ReactElement } from 'react';
import type { CommandIO } from '../cli/io.js';
import type { ExitReason } from './keymap.js';

export interface MountOptions {
  signal: AbortSignal;
  /** Unmount by itself after this long (ms); 0 or absent = no limit. */
  endAfterMs?: number;
  /** Unmount `lingerMs` after this settles (the last frame stays readable a moment). */
  endWhen?: Promise<unknown>;
  lingerMs?: number;
}

/** Mounts the app `app(onExit)` makes and resolves with how it ended (see above). */
export async function runTui(app: (onExit: (reason: ExitReason) => void) => ReactElement, io: CommandIO, options: MountOptions): Promise<ExitReason | 'ended'> {
  let reason: ExitReason | undefined;
  const how = await mountTui(
    app((r) => (reason = r)),
    io,
    options,
  );
  return how === 'interrupt' ? 'interrupt' : (reason ?? 'ended');
}

/** Mounts `app`; returns 'interrupt' when the signal ended it, else 'ended'. */
async function mountTui(app: ReactElement, io: CommandIO, options: MountOptions): Promise<'interrupt' | 'ended'> {
  let interrupted = false;
  const terminal = Boolean(io.stdout.isTTY);
  const held = terminal ? holdWrites(io.stderr) : undefined;
  try {
    const instance = render(app, {
      stdout: io.stdout as NodeJS.WriteStream,
      stderr: io.stderr as NodeJS.WriteStream,
      ...(io.stdin ? { stdin: io.stdin } : {}),
      exitOnCtrlC: false,
      patchConsole: false,
      maxFps: 10,
      interactive: terminal,
      alternateScreen: terminal,
    });
    const onAbort = (): void => {
      interrupted = true;
      instance.unmount();
    };
    options.signal.addEventListener('abort', onAbort, { once: true });
    if (options.signal.aborted) onAbort();
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
  } finally {
    held?.release();
  }
  return interrupted ? 'interrupt' : 'ended';
}

/** Holds what is written to `stream` until release(), then writes it, in order. */
function holdWrites(stream: CommandIO['stderr']): { release(): void } {
  const own = Object.getOwnPropertyDescriptor(stream, 'write');
  const chunks: (string | Uint8Array)[] = [];
  stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
    chunks.push(chunk);
    const done = rest.find((r): r is (err?: Error | null) => void => typeof r === 'function');
    if (done) queueMicrotask(() => done(null));
    return true;
  }) as typeof stream.write;
  return {
    release() {
      if (own) Object.defineProperty(stream, 'write', own);
      else Reflect.deleteProperty(stream, 'write');
      for (const c of chunks) stream.write(c);
    },
  };
}
