import { describe, expect, it } from 'vitest';
import { COMMON_KEYS } from './key-help.js';
import { initialScreen } from './screen-state.js';
import { TOP_KEYS, topLayout, topRows } from './top-layout.js';
import { buildTopView } from './top-view.js';

const T0 = Date.UTC(2026, 0, 1, 12);
const target = {
  source: 'https://10.0.0.1:10257/metrics',
  component: 'kube-controller-manager',
  namespace: null,
  pod: null,
  host: null,
  lease: null,
  foundBy: ['--metrics'],
};
const view = buildTopView({ now: T0, leases: [], metrics: null, targets: [target] });
const input = { view, changes: [], showIdle: false, width: 120, height: 20 };

describe('topLayout and topRows', () => {
  it('a line per component, the list under the header, its title, the column heads and above the footer', () => {
    const l = topLayout({ ...input, state: initialScreen('components') });
    expect(l.keys).toEqual(['source:kube-controller-manager']);
    expect(l.errors).toEqual([]);
    expect(l.body).toBe(18);
    expect(l.listHeight).toBe(15);
    const r = topRows({ ...input, state: initialScreen('components') }, l, 120);
    expect(r.header).toBe('top · 12:00:00 UTC · 1 component');
    expect(r.rows).toHaveLength(1);
    expect(r.rows[0]!.text.length).toBeLessThanOrEqual(120);
    expect(r.componentHead.dim).toBe(true);
    expect(r.window).toEqual({ index: 0, top: 0 });
  });

  it('the help lists the shared keys and `a`; Enter opens a component with its replicas', () => {
    const help = topLayout({ ...input, state: { ...initialScreen('components'), help: true } });
    expect(help.text?.lines).toHaveLength(COMMON_KEYS.length + TOP_KEYS.length);
    const opened = topLayout({ ...input, state: { ...initialScreen('components'), detail: 'source:kube-controller-manager', detailPane: 'components' } });
    expect(opened.text?.title).toBe('Detail');
    expect(opened.text?.lines.map((x) => x.text)).toContain('replicas:');
  });
});
