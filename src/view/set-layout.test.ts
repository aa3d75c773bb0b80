import { describe, expect, it } from 'vitest';
import { setMember } from '../../tools/testing/set-member.js';
import { COMMON_KEYS } from './key-help.js';
import { initialScreen } from './screen-state.js';
import { SET_OWN_KEYS, setLayout } from './set-layout.js';

const T0 = 1_790_000_000_000;
const members = [setMember(0, 'web', T0), setMember(1, 'api', T0), setMember(2, 'db', T0)];
const base = { members, now: T0 + 5_000, order: 'apply' as const, width: 100, height: 10 };

describe('setLayout', () => {
  it('lists every object under the header, the column heads and the footer, the first selected', () => {
    const l = setLayout({ ...base, state: initialScreen('objects') });
    expect(l.rows.map((r) => r.key)).toEqual(['0', '1', '2']);
    expect(l.body).toBe(7);
    expect(l.listHeight).toBe(6);
    expect(l.window).toEqual({ index: 0, top: 0 });
    expect(l.text).toBeUndefined();
  });

  it('keeps the objects the filter matches; the help and an object opened take the text', () => {
    expect(setLayout({ ...base, state: { ...initialScreen('objects'), filter: 'api' } }).rows.map((r) => r.key)).toEqual(['1']);
    const help = setLayout({ ...base, state: { ...initialScreen('objects'), help: true } });
    expect(help.text?.title).toBe('Keys');
    expect(help.text?.lines).toHaveLength(COMMON_KEYS.length + SET_OWN_KEYS.length);
    const opened = setLayout({ ...base, state: { ...initialScreen('objects'), detail: '2', detailPane: 'objects' } });
    expect(opened.text?.title).toBe('Object');
    expect(opened.text?.lines.map((r) => r.text).join('\n')).toContain('db');
    const gone = setLayout({ ...base, state: { ...initialScreen('objects'), detail: '9', detailPane: 'objects' } });
    expect(gone.text?.lines.map((r) => r.text)).toEqual(['no longer shown']);
  });
});
