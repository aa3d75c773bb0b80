/**
 * The one ink-testing-library wrapper for component tests: ink-testing-library's stdout is 100
 * columns wide (components also get an explicit width), and reading a frame fails on an empty one,
 * so a component that silently renders nothing cannot pass.
 */
import { render } from 'ink-testing-library';
import type { ReactElement } from 'react';

export const TEST_WIDTH = 100;

export interface InkHarness {
  /** The last frame; throws if nothing (or only whitespace) was rendered. */
  frame(): string;
  /** Every frame written so far, joined (Static output is written once, above the live area). */
  allOutput(): string;
  /** Polls until the last frame contains `text` (or `predicate` holds); throws with the frame after `timeoutMs`. */
  waitFor(textOrPredicate: string | ((frame: string) => boolean), timeoutMs?: number): Promise<string>;
  rerender(tree: ReactElement): void;
  stdin: { write(data: string): void };
  unmount(): void;
}

export function renderInk(tree: ReactElement): InkHarness {
  const inst = render(tree);
  const frame = (): string => {
    const f = inst.lastFrame();
    if (f === undefined || f.trim() === '') throw new Error('the component rendered an empty frame');
    return f;
  };
  return {
    frame,
    allOutput: () => inst.frames.join('\n'),
    async waitFor(what, timeoutMs = 10_000) {
      const ok = typeof what === 'string' ? (f: string) => f.includes(what) : what;
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const f = inst.lastFrame() ?? '';
        if (f.trim() !== '' && ok(f)) return f;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === 'string' ? JSON.stringify(what) : 'a frame'}; last frame:\n${f}`);
        await new Promise((r) => setTimeout(r, 5));
      }
    },
    rerender: (tree) => inst.rerender(tree),
    stdin: inst.stdin,
    unmount: () => inst.unmount(),
  };
}
