/**
 * Real terminals for the e2e tests of the full-screen views: tmux sessions on a tmux server of our
 * own, each running one command of the repository, read back through capture-pane.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { expect } from 'vitest';
import { cluster, uniqueName } from './helpers.js';

const root = resolve(import.meta.dirname, '../..');
/** Our own tmux server (one per test file), so that nothing else running tmux is touched. */
const SERVER = ['-L', uniqueName(`informer-trace-e2e-${process.pid}`), '-f', '/dev/null'];

export function tmuxInstalled(): boolean {
  return spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;
}

function tmux(...args: string[]): string {
  return execFileSync('tmux', [...SERVER, ...args], { encoding: 'utf8' });
}

/** Ends every terminal this file started. */
export function closeTerminals(): void {
  spawnSync('tmux', [...SERVER, 'kill-server']);
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** A terminal running one command; the shell prints markers before and after it. */
export class Terminal {
  constructor(readonly name: string) {}

  static start(name: string, width: number, height: number, argv: string[]): Terminal {
    const env = [`PATH=${dirname(process.execPath)}:${process.env.PATH ?? ''}`, `KUBECONFIG=${cluster().kubeconfigPath}`, 'TERM=xterm-256color'];
    const cmd = `cd ${shellQuote(root)} && echo BEFORE-THE-VIEW && env -u CI ${env.map(shellQuote).join(' ')} ${argv.map(shellQuote).join(' ')}; echo "EXIT $?"; exec sleep 3600`;
    tmux('new-session', '-d', '-x', String(width), '-y', String(height), '-s', name, cmd);
    return new Terminal(name);
  }

  /** The visible screen, one string per row. */
  screen(): string[] {
    return tmux('capture-pane', '-p', '-t', this.name).replace(/\n$/, '').split('\n');
  }

  /** The pane whose title is highlighted (bold cyan): the one with the focus. */
  focusedPane(): string | undefined {
    const rows = tmux('capture-pane', '-p', '-e', '-t', this.name).split('\n');
    for (const r of rows) {
      const m = /^((?:\u001b\[[\d;]*m)*)─ (\S+)/.exec(r);
      if (m && /[[;]36m/.test(m[1]!)) return m[2];
    }
    return undefined;
  }

  /** The scrollback and the screen, with lines the terminal wrapped joined again. */
  history(): string {
    return tmux('capture-pane', '-p', '-J', '-S', '-', '-t', this.name);
  }

  size(): { width: number; height: number } {
    const [w, h] = tmux('display-message', '-p', '-t', this.name, '#{pane_width} #{pane_height}').trim().split(' ').map(Number);
    return { width: w!, height: h! };
  }

  /** alternate_on: the alternate screen is up; cursor_flag: the cursor is shown. */
  modes(): { alternate: boolean; cursor: boolean } {
    const [alt, cursor] = tmux('display-message', '-p', '-t', this.name, '#{alternate_on} #{cursor_flag}').trim().split(' ');
    return { alternate: alt === '1', cursor: cursor === '1' };
  }

  keys(...keys: string[]): void {
    tmux('send-keys', '-t', this.name, ...keys);
  }

  /** Types text literally (no key names). */
  type(text: string): void {
    tmux('send-keys', '-l', '-t', this.name, text);
  }

  resize(width: number, height: number): void {
    tmux('resize-window', '-t', this.name, '-x', String(width), '-y', String(height));
  }

  async waitFor(what: string | RegExp | ((screen: string) => boolean), timeoutMs = 60_000): Promise<string> {
    const ok = typeof what === 'string' ? (s: string) => s.includes(what) : what instanceof RegExp ? (s: string) => what.test(s) : what;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const s = this.screen().join('\n');
      if (ok(s)) return s;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${String(what)} on the screen of ${this.name}; it shows:\n${s}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** The screen is a frame of the view, exactly within the terminal's size, its header on top. */
  expectFits(header: string): string[] {
    const { width, height } = this.size();
    const rows = this.screen();
    expect(rows.length).toBeLessThanOrEqual(height);
    for (const r of rows) expect([...r].length, r).toBeLessThanOrEqual(width);
    expect(rows[0]).toContain(header);
    expect(rows.filter((r) => r.includes(header))).toHaveLength(1);
    return rows;
  }

  close(): void {
    spawnSync('tmux', [...SERVER, 'kill-session', '-t', this.name]);
  }
}
