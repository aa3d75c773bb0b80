import { describe, expect, it } from 'vitest';
import { COMMON_KEYS } from './key-help.js';
import { queuesLayout } from './queues-layout.js';
import { initialScreen } from './screen-state.js';

describe('queuesLayout', () => {
  it('before the first scrape: no rows, the body under the header and above the footer', () => {
    const l = queuesLayout({ view: undefined, state: initialScreen('queues'), width: 80, height: 12 });
    expect(l.rows).toEqual([]);
    expect(l.body).toBe(10);
    expect(l.listHeight).toBe(9);
    expect(l.text).toBeUndefined();
  });

  it('the help lists the shared keys and `a`; a detail no longer shown says so', () => {
    const help = queuesLayout({ view: undefined, state: { ...initialScreen('queues'), help: true }, width: 80, height: 12 });
    expect(help.text?.title).toBe('Keys');
    expect(help.text?.lines).toHaveLength(COMMON_KEYS.length + 1);
    expect(help.text?.lines.at(-1)?.text).toMatch(/^a +show \/ hide idle queues$/);
    const gone = queuesLayout({ view: undefined, state: { ...initialScreen('queues'), detail: 'x', detailPane: 'queues' }, width: 80, height: 12 });
    expect(gone.text).toMatchObject({ title: 'Detail', lines: [{ text: 'no longer shown' }] });
  });
});
