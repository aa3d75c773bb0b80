import { describe, expect, it } from 'vitest';
import { ATTACKS, controlsIn, HOSTILE, HOSTILE_SHOWN, SHOWN } from '../../tools/testing/hostile.js';
import { parseXml } from '../../tools/testing/xml.js';
import { escapeMarkdown, escapeTerminal, escapeTerminalDeep, escapeXml } from './escape.js';

describe('escapeTerminal', () => {
  it('shows C0, DEL, C1 and lone surrogates instead of sending them', () => {
    expect(escapeTerminal(ATTACKS.clear)).toBe('\\x1b[2J');
    expect(escapeTerminal(ATTACKS.title)).toBe('\\x1b]0;pwned\\x07');
    expect(escapeTerminal(ATTACKS.overwrite)).toBe('ok\\rFAIL');
    expect(escapeTerminal(ATTACKS.csi)).toBe('\\u009b31m');
    expect(escapeTerminal('a\u0000b\tc\nd\u007fe\u0080f\u009fg')).toBe('a\\x00b\\tc\\nd\\x7fe\\u0080f\\u009fg');
    expect(escapeTerminal('x\ud800y \udc00z')).toBe('x\\ud800y \\udc00z');
    const out = escapeTerminal(HOSTILE);
    expect(out).toBe(HOSTILE_SHOWN);
    expect(controlsIn(out)).toEqual([]);
    for (const s of SHOWN) expect(out).toContain(s);
  });

  it('leaves everything else alone: text, wide characters, emoji (a surrogate pair), backslashes', () => {
    for (const s of ['web-7d9f', 'Back-off restarting failed container', '日本語 é e\u0301 👍', 'C:\\Users\\x \\d+ {"a":"\\n"}', '\u00a0\u00ff'])
      expect(escapeTerminal(s)).toBe(s);
    const plain = 'no controls here';
    expect(escapeTerminal(plain)).toBe(plain);
  });

  it('is idempotent: escaping escaped text changes nothing', () => {
    const once = escapeTerminal(HOSTILE);
    expect(escapeTerminal(once)).toBe(once);
  });

  it('keeps newlines or tabs when asked, and escapes the rest of each line', () => {
    expect(escapeTerminal('a\nb\u001b[2J\tc\rd', { newlines: true })).toBe('a\nb\\x1b[2J\\tc\\rd');
    expect(escapeTerminal('a\nb\tc', { tabs: true })).toBe('a\\nb\tc');
    expect(escapeTerminal('line one\nline\u001b]0;t\u0007 two', { newlines: true }).split('\n')).toEqual(['line one', 'line\\x1b]0;t\\x07 two']);
  });
});

describe('escapeTerminalDeep', () => {
  it('escapes every string of plain data, keys too, without touching the original', () => {
    const data = { message: ATTACKS.clear, list: ['ok', ATTACKS.csi], nested: { [`k${ATTACKS.overwrite}`]: 1, n: 2, flag: true, none: null } };
    const copy = escapeTerminalDeep(data);
    expect(copy).toEqual({ message: '\\x1b[2J', list: ['ok', '\\u009b31m'], nested: { 'kok\\rFAIL': 1, n: 2, flag: true, none: null } });
    expect(data.message).toBe(ATTACKS.clear);
    expect(data.list[1]).toBe(ATTACKS.csi);
  });

  it('returns what has nothing to escape as it is, and shares what did not change', () => {
    const clean = { a: 'x', b: [1, 'y'], c: { d: 'z' } };
    expect(escapeTerminalDeep(clean)).toBe(clean);
    const mixed = { clean: clean.c, dirty: { m: ATTACKS.nul } };
    const out = escapeTerminalDeep(mixed);
    expect(out).not.toBe(mixed);
    expect(out.clean).toBe(clean.c);
    expect(out.dirty.m).toBe('nul\\x00');
  });

  it('keeps a __proto__ key a key, and a null-prototype object null-prototype', () => {
    const parsed = JSON.parse(`{"__proto__": {"polluted": "\\u001b[2J"}, "m": "\\u001b"}`) as Record<string, unknown>;
    const out = escapeTerminalDeep(parsed);
    expect(Object.keys(out)).toEqual(['__proto__', 'm']);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect((Object.getOwnPropertyDescriptor(out, '__proto__')!.value as { polluted: string }).polluted).toBe('\\x1b[2J');
    const bare = Object.assign(Object.create(null) as Record<string, string>, { m: ATTACKS.clear });
    const escaped = escapeTerminalDeep(bare);
    expect(Object.getPrototypeOf(escaped)).toBeNull();
    expect(escaped.m).toBe('\\x1b[2J');
  });

  it('leaves class instances, Maps and cycles alone, and escapes an object met twice once', () => {
    const shared = { name: ATTACKS.clear };
    const when = new Date(0);
    const map = new Map([['k', ATTACKS.clear]]);
    const cyclic: Record<string, unknown> = { name: 'c' };
    cyclic.self = cyclic;
    const out = escapeTerminalDeep({ a: shared, b: shared, when, map, cyclic });
    expect(out.a).toBe(out.b);
    expect(out.a.name).toBe('\\x1b[2J');
    expect(out.when).toBe(when);
    expect(out.map).toBe(map);
    expect(out.cyclic).toBe(cyclic);
  });
});

describe('escapeMarkdown', () => {
  it('escapes HTML and every Markdown special, and joins lines with <br>', () => {
    expect(escapeMarkdown('a|b\\c <i>`x`\nnext & more')).toBe('a&#124;b&#92;c &lt;i&gt;&#96;x&#96;<br>next &amp; more');
    expect(escapeMarkdown('*b* _i_ [l](u) # h ~s~')).toBe('&#42;b&#42; &#95;i&#95; &#91;l&#93;(u) &#35; h &#126;s&#126;');
    expect(escapeMarkdown('a\r\nb')).toBe('a<br>b');
  });

  it('a hostile message is one cell: no raw control, no tag, no pipe', () => {
    const out = escapeMarkdown(HOSTILE);
    expect(controlsIn(out)).toEqual([]);
    expect(out).not.toMatch(/[|<>*`]/);
    expect(out).not.toContain('\n');
    expect(out).toContain('&lt;script&gt;');
    expect(out).toContain('&#92;x1b&#91;2J');
  });
});

describe('escapeXml', () => {
  it('escapes the five entities, keeps tab and newline in text, references them in attributes; a lone CR is shown', () => {
    expect(escapeXml(`<a> & "b" 'c'`)).toBe('&lt;a&gt; &amp; &quot;b&quot; &apos;c&apos;');
    expect(escapeXml('a\tb\nc\r\nd\re')).toBe('a\tb\nc\nd\\re');
    expect(escapeXml('a\tb\nc\r\nd\re', { attribute: true })).toBe('a&#9;b&#10;c&#10;d\\re');
    expect(escapeXml(']]>')).toBe(']]&gt;');
  });

  it('replaces what XML 1.0 cannot carry, and DEL and C1, with their escaped form; keeps surrogate pairs', () => {
    expect(escapeXml('ok\u0000\u0001\u0008\u000b\u001b\u007f\u009b\ufffe\uffff\ud83d\ude00\ud800\udc00x\udc00')).toBe(
      'ok\\x00\\x01\\x08\\x0b\\x1b\\x7f\\u009b\\ufffe\\uffff\ud83d\ude00\ud800\udc00x\\udc00',
    );
  });

  it('gives well-formed XML whatever the text, and the text reads back as escapeTerminal shows it', () => {
    for (const attribute of [false, true]) {
      const xml = attribute ? `<a v="${escapeXml(HOSTILE, { attribute })}"/>` : `<a>${escapeXml(HOSTILE)}</a>`;
      expect(controlsIn(xml)).toEqual([]);
      const root = parseXml(xml);
      const read = attribute ? root.attributes.v! : root.text;
      expect(read).toBe(HOSTILE.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]|\ud800(?![\udc00-\udfff])/g, (c) => escapeTerminal(c)));
    }
  });
});
