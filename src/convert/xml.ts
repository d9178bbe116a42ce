// A small, forgiving XML reader for the OOXML parts the converters read themselves (where the
// parsers they use leave something out). It builds a plain element tree: no DTDs, no external
// entities (only the five predefined ones and character references are decoded), no namespaces
// resolved (names keep their prefix, as Office writes them). Broken markup never throws: an
// unmatched end tag closes what it can, and what is left open is closed at the end.

export interface XmlElement {
  /** The qualified name as written, e.g. `a:pPr`. */
  name: string;
  attributes: Record<string, string>;
  children: XmlNode[];
}

export type XmlNode = XmlElement | string;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref.startsWith('#')) {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[ref] ?? whole;
  });
}

// A tag's attributes may hold `>` inside quotes, so they are matched quote by quote.
const TOKEN = /<!--[\s\S]*?-->|<!\[CDATA\[([\s\S]*?)\]\]>|<\?[\s\S]*?\?>|<!(?:[^>"']|"[^"]*"|'[^']*')*>|<(\/?)([^\s/>]+)((?:[^>"']|"[^"]*"|'[^']*')*?)(\/?)>/g;
const ATTRIBUTE = /([^\s=]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

function attributesOf(source: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const match of source.matchAll(ATTRIBUTE)) {
    const name = match[1];
    if (name) attributes[name] = decode(match[2] ?? match[3] ?? '');
  }
  return attributes;
}

/** Parses a document; the returned element is a synthetic root whose children are the top-level nodes. */
export function parseXml(source: string): XmlElement {
  const root: XmlElement = { name: '#document', attributes: {}, children: [] };
  const open: XmlElement[] = [root];
  let position = 0;
  const append = (node: XmlNode) => open.at(-1)?.children.push(node);
  for (const match of source.matchAll(TOKEN)) {
    const index = match.index;
    if (index > position) append(decode(source.slice(position, index)));
    position = index + match[0].length;
    const [, cdata, closing, name, attributes, selfClosing] = match;
    if (cdata !== undefined) append(cdata);
    if (!name) continue;
    if (closing) {
      const at = open.map((e) => e.name).lastIndexOf(name);
      if (at > 0) open.length = at;
      continue;
    }
    const element: XmlElement = { name, attributes: attributesOf(attributes ?? ''), children: [] };
    append(element);
    if (!selfClosing) open.push(element);
  }
  if (position < source.length) append(decode(source.slice(position)));
  return root;
}

function isElement(node: XmlNode): node is XmlElement {
  return typeof node !== 'string';
}

/** The element's child elements with this name, in order. */
export function childElements(element: XmlElement | undefined, name: string): XmlElement[] {
  return element ? element.children.filter((c): c is XmlElement => isElement(c) && c.name === name) : [];
}

/** The element's first child element with this name. */
export function childElement(element: XmlElement | undefined, name: string): XmlElement | undefined {
  return element?.children.find((c): c is XmlElement => isElement(c) && c.name === name);
}

/** The first element with this name at any depth (document order). */
export function findElement(element: XmlElement | undefined, name: string): XmlElement | undefined {
  const pending: XmlNode[] = element ? [...element.children].reverse() : [];
  while (pending.length > 0) {
    const node = pending.pop();
    if (!node || !isElement(node)) continue;
    if (node.name === name) return node;
    for (let i = node.children.length - 1; i >= 0; i--) pending.push(node.children[i] as XmlNode);
  }
  return undefined;
}

/** The element's child elements, whatever their names. */
export function elementsOf(element: XmlElement): XmlElement[] {
  return element.children.filter(isElement);
}
