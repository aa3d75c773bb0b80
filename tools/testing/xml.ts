/**
 * A strict little XML reader for tests of generated XML (SVG): it throws on anything not
 * well-formed (unclosed or mismatched tags, a bare `<` or `&`, an unknown entity, an unquoted or
 * repeated attribute, text outside the root) and returns the element tree with decoded text, so a
 * test can look inside. No DTDs, no namespaces resolution: what the generators never write.
 */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  /** Text directly inside, entities decoded. */
  text: string;
}

const NAME = /[A-Za-z_:][-A-Za-z0-9_:.]*/y;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(s: string, at: number): string {
  return s.replace(/&([^;&<]*);|&/g, (_m, name: string | undefined) => {
    if (name === undefined) throw new Error(`bare & at ${at}`);
    if (name.startsWith('#x')) return String.fromCodePoint(Number.parseInt(name.slice(2), 16));
    if (name.startsWith('#')) return String.fromCodePoint(Number.parseInt(name.slice(1), 10));
    const v = ENTITIES[name];
    if (v === undefined) throw new Error(`unknown entity &${name}; at ${at}`);
    return v;
  });
}

export function parseXml(source: string): XmlElement {
  let i = 0;
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  const fail = (why: string): never => {
    throw new Error(`${why} at offset ${i}: ${JSON.stringify(source.slice(i, i + 40))}`);
  };
  const name = (): string => {
    NAME.lastIndex = i;
    const m = NAME.exec(source);
    if (!m) fail('expected a name');
    i = NAME.lastIndex;
    return m![0];
  };
  const spaces = (): void => {
    while (i < source.length && /\s/.test(source[i]!)) i++;
  };
  if (source.startsWith('<?xml')) {
    const end = source.indexOf('?>');
    if (end < 0) fail('unterminated XML declaration');
    i = end + 2;
  }
  while (i < source.length) {
    const lt = source.indexOf('<', i);
    const chunk = source.slice(i, lt < 0 ? source.length : lt);
    if (stack.length === 0) {
      if (chunk.trim() !== '') fail('text outside the root element');
    } else stack.at(-1)!.text += decode(chunk, i);
    if (lt < 0) break;
    i = lt;
    if (source.startsWith('<!--', i)) {
      const end = source.indexOf('-->', i);
      if (end < 0) fail('unterminated comment');
      i = end + 3;
      continue;
    }
    if (source.startsWith('</', i)) {
      i += 2;
      const n = name();
      spaces();
      if (source[i] !== '>') fail('expected > to close an end tag');
      i++;
      const open = stack.pop();
      if (!open || open.name !== n) fail(`</${n}> closes <${open?.name ?? 'nothing'}>`);
      continue;
    }
    i++;
    const el: XmlElement = { name: name(), attributes: {}, children: [], text: '' };
    for (;;) {
      const before = i;
      spaces();
      if (source.startsWith('/>', i) || source[i] === '>') break;
      if (i === before) fail('expected a space before an attribute');
      const a = name();
      spaces();
      if (source[i] !== '=') fail(`attribute ${a} has no value`);
      i++;
      spaces();
      const q = source[i];
      if (q !== '"' && q !== "'") fail(`attribute ${a} is not quoted`);
      const end = source.indexOf(q!, i + 1);
      if (end < 0) fail(`attribute ${a} is not closed`);
      const raw = source.slice(i + 1, end);
      if (raw.includes('<')) fail(`attribute ${a} holds a <`);
      if (a in el.attributes) fail(`attribute ${a} is repeated`);
      el.attributes[a] = decode(raw, i);
      i = end + 1;
    }
    if (stack.length) stack.at(-1)!.children.push(el);
    else if (root) fail('a second root element');
    else root = el;
    if (source.startsWith('/>', i)) i += 2;
    else {
      i++;
      stack.push(el);
    }
  }
  if (stack.length) throw new Error(`<${stack.at(-1)!.name}> is never closed`);
  if (!root) throw new Error('no root element');
  return root;
}

/** Every element in document order, the root first. */
export function allElements(root: XmlElement): XmlElement[] {
  const out: XmlElement[] = [];
  const walk = (e: XmlElement): void => {
    out.push(e);
    e.children.forEach(walk);
  };
  walk(root);
  return out;
}

/** The text of an element and everything inside it. */
export function textContent(e: XmlElement): string {
  return e.text + e.children.map(textContent).join('');
}
