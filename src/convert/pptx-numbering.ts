// The numbering of a deck's paragraphs as PowerPoint shows it. A numbered list's `a:buAutoNum`
// is often not on the paragraph: it comes from the shape's list style, from the placeholder it
// fills on the slide layout, from that placeholder on the slide master, or from the master's
// text styles. officeparser reads only the paragraph's own properties, so this walks the chain
// itself: slide → layout → master, through the parts' relationships.
import path from 'node:path';
import { childElement, childElements, elementsOf, findElement, parseXml } from './xml.js';
import type { XmlElement } from './xml.js';

/** A paragraph's bullet, from the first place in the chain that sets one. */
type Bullet = { kind: 'none' } | { kind: 'char' } | { kind: 'number'; scheme: string; startAt: number };

/** Bullets per level (0 to 8) of one list style; a gap means "not set here". */
type LevelBullets = (Bullet | undefined)[];

/** One non-empty paragraph of a slide, in reading order, with its number if it has one. */
export interface SlideParagraph {
  /** Its text up to the first line break, whitespace collapsed (what officeparser's node holds). */
  text: string;
  level: number;
  /** The label PowerPoint shows (`3.`, `b)`, `iv.`), or undefined when it is not numbered. */
  label?: string;
}

interface Placeholder {
  type: string;
  idx?: string;
}

interface Shape {
  placeholder?: Placeholder;
  lstStyle: LevelBullets;
}

/** A layout or master: its placeholders' list styles. */
interface Part {
  shapes: Shape[];
}

interface Master extends Part {
  title: LevelBullets;
  body: LevelBullets;
  other: LevelBullets;
}

function bulletOf(pPr: XmlElement | undefined): Bullet | undefined {
  for (const child of pPr ? elementsOf(pPr) : []) {
    if (child.name === 'a:buNone') return { kind: 'none' };
    if (child.name === 'a:buChar' || child.name === 'a:buBlip') return { kind: 'char' };
    if (child.name === 'a:buAutoNum') {
      const startAt = Number(child.attributes.startAt ?? '1');
      return {
        kind: 'number',
        scheme: child.attributes.type ?? 'arabicPeriod',
        startAt: Number.isSafeInteger(startAt) && startAt >= 1 && startAt <= 32767 ? startAt : 1,
      };
    }
  }
  return undefined;
}

function levelBullets(style: XmlElement | undefined): LevelBullets {
  const levels: LevelBullets = [];
  for (let level = 0; level < 9; level++) levels[level] = bulletOf(childElement(style, `a:lvl${level + 1}pPr`));
  return levels;
}

function placeholderOf(sp: XmlElement): Placeholder | undefined {
  const ph = childElement(childElement(childElement(sp, 'p:nvSpPr'), 'p:nvPr'), 'p:ph');
  // A placeholder without a type is an object (content) placeholder.
  return ph ? { type: ph.attributes.type ?? 'obj', idx: ph.attributes.idx } : undefined;
}

/** The shapes of a shape tree in reading order, groups and alternate content opened. */
function shapesOf(tree: XmlElement | undefined): XmlElement[] {
  const found: XmlElement[] = [];
  const pending = tree ? elementsOf(tree).reverse() : [];
  while (pending.length > 0) {
    const node = pending.pop();
    if (!node) continue;
    if (node.name === 'p:sp') found.push(node);
    else if (node.name === 'p:grpSp') pending.push(...elementsOf(node).reverse());
    else if (node.name === 'mc:AlternateContent') {
      const branch = childElement(node, 'mc:Choice') ?? childElement(node, 'mc:Fallback');
      if (branch) pending.push(...elementsOf(branch).reverse());
    }
  }
  return found;
}

function readPart(xml: XmlElement): Part {
  const tree = findElement(xml, 'p:spTree');
  return {
    shapes: shapesOf(tree).map((sp) => ({
      placeholder: placeholderOf(sp),
      lstStyle: levelBullets(childElement(childElement(sp, 'p:txBody'), 'a:lstStyle')),
    })),
  };
}

function readMaster(xml: XmlElement): Master {
  const styles = findElement(xml, 'p:txStyles');
  return {
    ...readPart(xml),
    title: levelBullets(childElement(styles, 'p:titleStyle')),
    body: levelBullets(childElement(styles, 'p:bodyStyle')),
    other: levelBullets(childElement(styles, 'p:otherStyle')),
  };
}

const TITLE_TYPES = new Set(['title', 'ctrTitle']);

/** A master's placeholders are matched by type; a layout's by index first, as PowerPoint does. */
function matchPlaceholder(part: Part | undefined, placeholder: Placeholder, byIndex: boolean): Shape | undefined {
  if (!part) return undefined;
  const shapes = part.shapes.filter((s) => s.placeholder);
  if (byIndex && placeholder.idx !== undefined) {
    const same = shapes.find((s) => s.placeholder?.idx === placeholder.idx);
    if (same) return same;
  }
  const type = (t: string) => (TITLE_TYPES.has(t) ? 'title' : t === 'subTitle' || t === 'obj' ? 'body' : t);
  return (
    shapes.find((s) => s.placeholder?.type === placeholder.type) ??
    shapes.find((s) => type(s.placeholder?.type ?? '') === type(placeholder.type))
  );
}

/** Letters for alpha schemes: a … z, aa … zz, as PowerPoint counts. */
function alpha(n: number): string {
  const letter = String.fromCharCode(97 + ((n - 1) % 26));
  return letter.repeat(Math.floor((n - 1) / 26) + 1);
}

function roman(n: number): string {
  const numerals: [number, string][] = [
    [1000, 'm'], [900, 'cm'], [500, 'd'], [400, 'cd'], [100, 'c'], [90, 'xc'],
    [50, 'l'], [40, 'xl'], [10, 'x'], [9, 'ix'], [5, 'v'], [4, 'iv'], [1, 'i'],
  ];
  let out = '';
  let rest = n;
  for (const [value, numeral] of numerals) {
    while (rest >= value) {
      out += numeral;
      rest -= value;
    }
  }
  return out;
}

/** The label of the n-th item of a scheme (ECMA-376's ST_TextAutonumberScheme). */
export function numberLabel(scheme: string, n: number): string {
  const style = /^(arabic|alphaLc|alphaUc|romanLc|romanUc)(.*)$/.exec(scheme);
  const [kind, punctuation] = style ? [style[1], style[2]] : ['arabic', 'Period'];
  const value =
    kind === 'alphaLc' ? alpha(n) : kind === 'alphaUc' ? alpha(n).toUpperCase() : kind === 'romanLc' ? roman(n) : kind === 'romanUc' ? roman(n).toUpperCase() : String(n);
  switch (punctuation) {
    case 'ParenBoth':
      return `(${value})`;
    case 'ParenR':
      return `${value})`;
    case 'Plain':
      return value;
    case 'Minus':
      return `- ${value} -`;
    default:
      // Period, and the schemes of other scripts, which are counted here in Arabic digits.
      return `${value}.`;
  }
}

function paragraphText(p: XmlElement): string {
  let text = '';
  for (const child of elementsOf(p)) {
    if (child.name === 'a:br') break;
    if (child.name === 'a:r' || child.name === 'a:fld') {
      const t = childElement(child, 'a:t');
      text += (t?.children ?? []).filter((c): c is string => typeof c === 'string').join('');
    }
  }
  return text.replace(/\s+/g, ' ').trim();
}

/** The counters of one text body: PowerPoint restarts a list at a paragraph that is not numbered. */
function numberParagraphs(paragraphs: readonly { text: string; level: number; bullet: Bullet | undefined }[]): SlideParagraph[] {
  const counters: ({ scheme: string; startAt: number; n: number } | undefined)[] = [];
  const out: SlideParagraph[] = [];
  for (const { text, level, bullet } of paragraphs) {
    // An empty paragraph shows no number and does not break the count.
    if (!text) continue;
    counters.length = Math.min(counters.length, level + 1);
    if (bullet?.kind !== 'number') {
      counters.length = Math.min(counters.length, level);
      out.push({ text, level });
      continue;
    }
    const previous = counters[level];
    const n = previous && previous.scheme === bullet.scheme && previous.startAt === bullet.startAt ? previous.n + 1 : bullet.startAt;
    counters[level] = { scheme: bullet.scheme, startAt: bullet.startAt, n };
    out.push({ text, level, label: numberLabel(bullet.scheme, n) });
  }
  return out;
}

/** A relationship's target as a path inside the package. */
function resolveTarget(from: string, target: string): string {
  return target.startsWith('/') ? target.slice(1) : path.posix.normalize(path.posix.join(path.posix.dirname(from), target));
}

/** A part's relationships of one type (or all), internal ones only, by id. */
function relationships(rels: string | undefined, from: string, type?: string): Map<string, string> {
  const found = new Map<string, string>();
  if (!rels) return found;
  for (const r of childElements(childElement(parseXml(rels), 'Relationships'), 'Relationship')) {
    if (r.attributes.TargetMode === 'External' || (type && !r.attributes.Type?.endsWith(`/${type}`))) continue;
    found.set(r.attributes.Id ?? '', resolveTarget(from, r.attributes.Target ?? ''));
  }
  return found;
}

function firstTarget(rels: string | undefined, from: string, type: string): string | undefined {
  return [...relationships(rels, from, type).values()][0];
}

function relsOf(part: string): string {
  return path.posix.join(path.posix.dirname(part), '_rels', `${path.posix.basename(part)}.rels`);
}

/** The package parts the numbering needs: slides, layouts, masters, and their relationships. */
export function isNumberingPart(name: string): boolean {
  return /^ppt\/(?:presentation\.xml|_rels\/presentation\.xml\.rels|(?:slides|slideLayouts|slideMasters)\/(?:_rels\/)?[^/]+\.xml(?:\.rels)?)$/.test(name);
}

/** The slide parts in the order the deck shows them (its slide list), else by their numbers. */
function deckOrder(parts: ReadonlyMap<string, string>): string[] {
  const slides = [...parts.keys()]
    .filter((name) => /^ppt\/slides\/slide\d+\.xml$/.test(name))
    .sort((a, b) => Number(/(\d+)\.xml$/.exec(a)?.[1]) - Number(/(\d+)\.xml$/.exec(b)?.[1]));
  const presentation = parts.get('ppt/presentation.xml');
  const rels = parts.get('ppt/_rels/presentation.xml.rels');
  if (!presentation || !rels) return slides;
  const targets = relationships(rels, 'ppt/presentation.xml');
  const listed = childElements(findElement(parseXml(presentation), 'p:sldIdLst'), 'p:sldId')
    .map((entry) => targets.get(entry.attributes['r:id'] ?? ''))
    .filter((name): name is string => name !== undefined && slides.includes(name));
  return listed.length > 0 ? [...new Set(listed)] : slides;
}

/**
 * Every slide's non-empty paragraphs, in deck order, numbered as PowerPoint numbers them; []
 * when no part sets a number at all. `parts` holds the package's parts named by
 * isNumberingPart, as text.
 */
export function slideNumbering(parts: ReadonlyMap<string, string>): SlideParagraph[][] {
  // Most decks number nothing; they need none of their parts parsed (#36: conversion time).
  if (![...parts.values()].some((xml) => xml.includes('buAutoNum'))) return [];
  const layouts = new Map<string, Part & { master?: string }>();
  const masters = new Map<string, Master>();
  const layoutOf = (name: string | undefined) => {
    if (!name) return undefined;
    let layout = layouts.get(name);
    const xml = layout ? undefined : parts.get(name);
    if (!layout && xml !== undefined) {
      layout = { ...readPart(parseXml(xml)), master: firstTarget(parts.get(relsOf(name)), name, 'slideMaster') };
      layouts.set(name, layout);
    }
    return layout;
  };
  const masterOf = (name: string | undefined) => {
    if (!name) return undefined;
    let master = masters.get(name);
    const xml = master ? undefined : parts.get(name);
    if (!master && xml !== undefined) {
      master = readMaster(parseXml(xml));
      masters.set(name, master);
    }
    return master;
  };

  return deckOrder(parts).map((slide) => {
    const layout = layoutOf(firstTarget(parts.get(relsOf(slide)), slide, 'slideLayout'));
    const master = masterOf(layout?.master);
    const out: SlideParagraph[] = [];
    for (const sp of shapesOf(findElement(parseXml(parts.get(slide) ?? ''), 'p:spTree'))) {
      const body = childElement(sp, 'p:txBody');
      if (!body) continue;
      const placeholder = placeholderOf(sp);
      const own = levelBullets(childElement(body, 'a:lstStyle'));
      const inherited: LevelBullets[] = [own];
      if (placeholder) {
        inherited.push(matchPlaceholder(layout, placeholder, true)?.lstStyle ?? []);
        inherited.push(matchPlaceholder(master, placeholder, false)?.lstStyle ?? []);
        const title = TITLE_TYPES.has(placeholder.type);
        const furniture = ['dt', 'ftr', 'sldNum', 'hdr'].includes(placeholder.type);
        inherited.push((title ? master?.title : furniture ? master?.other : master?.body) ?? []);
      } else {
        inherited.push(master?.other ?? []);
      }
      const paragraphs = childElements(body, 'a:p').map((p) => {
        const pPr = childElement(p, 'a:pPr');
        const lvl = Number(pPr?.attributes.lvl ?? '0');
        const level = Number.isInteger(lvl) ? Math.max(0, Math.min(8, lvl)) : 0;
        const bullet = bulletOf(pPr) ?? inherited.map((styles) => styles[level]).find((b) => b !== undefined);
        return { text: paragraphText(p), level, bullet };
      });
      out.push(...numberParagraphs(paragraphs));
    }
    return out;
  });
}
