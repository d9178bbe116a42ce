// PowerPoint numbering (#36): numbered lists whose `a:buAutoNum` is on the paragraph, in the
// shape's list style, on the slide layout's placeholder, on the master's placeholder or in the
// master's text styles come out as numbered Markdown lists, with their start, restarts and
// nested levels. The deck is a real .pptx package built here, part by part.
import { describe, expect, it } from 'vitest';
import { convertDocument } from '../../src/convert/convert.js';
import { numberLabel } from '../../src/convert/pptx-numbering.js';
import { buildZip } from './support.js';
import type { ZipEntrySpec } from './support.js';

const NS =
  'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" ' +
  'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" ' +
  'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

interface Para {
  text: string;
  lvl?: number;
  /** The paragraph's own bullet: `<a:buAutoNum …/>`, `<a:buNone/>`, `<a:buChar char="•"/>`. */
  bullet?: string;
}

function paragraphs(list: readonly Para[]): string {
  return list
    .map((p) => {
      const attrs = p.lvl ? ` lvl="${p.lvl}"` : '';
      const pPr = p.bullet || attrs ? `<a:pPr${attrs}>${p.bullet ?? ''}</a:pPr>` : '';
      return `<a:p>${pPr}${p.text ? `<a:r><a:rPr lang="en-US"/><a:t>${p.text}</a:t></a:r>` : ''}</a:p>`;
    })
    .join('');
}

/** A shape: a placeholder (`type`/`idx`) or a plain text box, with an optional list style. */
function shape(id: number, placeholder: { type?: string; idx?: number } | null, body: readonly Para[], lstStyle = ''): string {
  const ph = placeholder ? `<p:ph${placeholder.type ? ` type="${placeholder.type}"` : ''}${placeholder.idx !== undefined ? ` idx="${placeholder.idx}"` : ''}/>` : '';
  return (
    `<p:sp><p:nvSpPr><p:cNvPr id="${id}" name="Shape ${id}"/><p:cNvSpPr${placeholder ? '' : ' txBox="1"'}/><p:nvPr>${ph}</p:nvPr></p:nvSpPr>` +
    `<p:spPr/><p:txBody><a:bodyPr/><a:lstStyle>${lstStyle}</a:lstStyle>${paragraphs(body)}</p:txBody></p:sp>`
  );
}

function part(root: string, shapes: readonly string[], extra = ''): string {
  return (
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><p:${root} ${NS}><p:cSld><p:spTree>` +
    '<p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>' +
    `${shapes.join('')}</p:spTree></p:cSld>${extra}</p:${root}>`
  );
}

function rels(targets: readonly [string, string][]): string {
  return (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
    targets.map(([type, target], i) => `<Relationship Id="rId${i + 1}" Type="${REL}/${type}" Target="${target}"/>`).join('') +
    '</Relationships>'
  );
}

const AUTO = (type = 'arabicPeriod', startAt?: number) => `<a:buAutoNum type="${type}"${startAt ? ` startAt="${startAt}"` : ''}/>`;

/**
 * A deck of two layouts on one master. The master numbers its body text (bodyStyle: level 1
 * `1.`, level 2 `a)`); layout 1 keeps that, layout 2's content placeholder (idx 1) numbers in
 * roman numerals from iii, and its second placeholder (idx 2) has bullets.
 */
function deck(slides: readonly { layout: 1 | 2; shapes: string[] }[]): Buffer {
  const bodyStyle = `<p:bodyStyle><a:lvl1pPr>${AUTO()}</a:lvl1pPr><a:lvl2pPr>${AUTO('alphaLcParenR')}</a:lvl2pPr></p:bodyStyle>`;
  const master = part(
    'sldMaster',
    [shape(2, { type: 'title' }, [{ text: 'Master title' }]), shape(3, { type: 'body', idx: 1 }, [{ text: 'Master text' }])],
    `<p:sldLayoutIdLst><p:sldLayoutId id="2147483649" r:id="rId1"/><p:sldLayoutId id="2147483650" r:id="rId2"/></p:sldLayoutIdLst>` +
      `<p:txStyles><p:titleStyle><a:lvl1pPr><a:buNone/></a:lvl1pPr></p:titleStyle>${bodyStyle}<p:otherStyle/></p:txStyles>`,
  );
  const layout1 = part('sldLayout', [shape(2, { type: 'title' }, []), shape(3, { idx: 1 }, [])]);
  const layout2 = part('sldLayout', [
    shape(2, { type: 'title' }, []),
    shape(3, { idx: 1 }, [], `<a:lvl1pPr>${AUTO('romanLcPeriod', 3)}</a:lvl1pPr>`),
    shape(4, { idx: 2 }, [], '<a:lvl1pPr><a:buChar char="•"/></a:lvl1pPr>'),
  ]);
  const entries: ZipEntrySpec[] = [
    {
      name: '[Content_Types].xml',
      data:
        '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="xml" ContentType="application/xml"/>' +
        '<Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/>' +
        slides.map((_, i) => `<Override PartName="/ppt/slides/slide${i + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.slide+xml"/>`).join('') +
        '</Types>',
    },
    { name: '_rels/.rels', data: rels([['officeDocument', 'ppt/presentation.xml']]) },
    {
      name: 'ppt/presentation.xml',
      data:
        `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><p:presentation ${NS}>` +
        '<p:sldMasterIdLst><p:sldMasterId id="2147483648" r:id="rId1"/></p:sldMasterIdLst><p:sldIdLst>' +
        slides.map((_, i) => `<p:sldId id="${256 + i}" r:id="rId${i + 2}"/>`).join('') +
        '</p:sldIdLst><p:sldSz cx="9144000" cy="6858000"/></p:presentation>',
    },
    {
      name: 'ppt/_rels/presentation.xml.rels',
      data: rels([['slideMaster', 'slideMasters/slideMaster1.xml'], ...slides.map((_, i): [string, string] => ['slide', `slides/slide${i + 1}.xml`])]),
    },
    { name: 'ppt/slideMasters/slideMaster1.xml', data: master },
    { name: 'ppt/slideMasters/_rels/slideMaster1.xml.rels', data: rels([['slideLayout', '../slideLayouts/slideLayout1.xml'], ['slideLayout', '../slideLayouts/slideLayout2.xml']]) },
    { name: 'ppt/slideLayouts/slideLayout1.xml', data: layout1 },
    { name: 'ppt/slideLayouts/_rels/slideLayout1.xml.rels', data: rels([['slideMaster', '../slideMasters/slideMaster1.xml']]) },
    { name: 'ppt/slideLayouts/slideLayout2.xml', data: layout2 },
    { name: 'ppt/slideLayouts/_rels/slideLayout2.xml.rels', data: rels([['slideMaster', '../slideMasters/slideMaster1.xml']]) },
  ];
  slides.forEach((slide, i) => {
    entries.push({ name: `ppt/slides/slide${i + 1}.xml`, data: part('sld', slide.shapes) });
    entries.push({ name: `ppt/slides/_rels/slide${i + 1}.xml.rels`, data: rels([['slideLayout', `../slideLayouts/slideLayout${slide.layout}.xml`]]) });
  });
  return buildZip(entries);
}

/** The Markdown of one slide, without its `## Slide N` heading. */
function slideBody(markdown: string, n: number): string {
  const start = markdown.indexOf(`## Slide ${n}\n`);
  const end = markdown.indexOf('## Slide ', start + 1);
  return markdown.slice(start, end < 0 ? undefined : end).replace(/^## Slide \d+\n\n/, '').trim();
}

describe('PowerPoint numbered lists', () => {
  const markdown = convertDocument(
    deck([
      // 1: numbering on the paragraphs themselves, starting at 4, in a plain text box.
      {
        layout: 1,
        shapes: [
          shape(2, { type: 'title' }, [{ text: 'Own numbers' }]),
          shape(5, null, [
            { text: 'Check the pumps', bullet: AUTO('arabicPeriod', 4) },
            { text: 'Clean the filters', bullet: AUTO('arabicPeriod', 4) },
          ]),
        ],
      },
      // 2: numbering from the master's body style: two levels, restarted after a plain paragraph.
      {
        layout: 1,
        shapes: [
          shape(2, { type: 'title' }, [{ text: 'Morning round' }]),
          shape(3, { idx: 1 }, [
            { text: 'Feed the otters' },
            { text: 'Fish first', lvl: 1 },
            { text: 'Then crabs', lvl: 1 },
            { text: '' },
            { text: 'Count the pups' },
            { text: 'Weather permitting:', bullet: '<a:buNone/>' },
            { text: 'Open the gate' },
            { text: 'Log the visit' },
          ]),
        ],
      },
      // 3: numbering from the layout's placeholder (roman, from iii); bullets in the other one.
      {
        layout: 2,
        shapes: [
          shape(2, { type: 'title' }, [{ text: 'Evening round' }]),
          shape(3, { idx: 1 }, [{ text: 'Lock the den' }, { text: 'Dim the lights' }]),
          shape(4, { idx: 2 }, [{ text: 'Towels' }, { text: 'Buckets' }]),
        ],
      },
      // 4: the shape's own list style overrides the layout (arabic in parentheses).
      {
        layout: 2,
        shapes: [shape(3, { idx: 1 }, [{ text: 'First step' }, { text: 'Second step' }], `<a:lvl1pPr>${AUTO('arabicParenR')}</a:lvl1pPr>`)],
      },
    ]),
    'numbered.pptx',
  );

  it('numbers paragraphs from their own buAutoNum, honouring its start', async () => {
    expect(slideBody(await markdown, 1)).toBe('### Own numbers\n\n4. Check the pumps\n5. Clean the filters');
  });

  it('numbers body text from the master, nested levels under their item, restarting after a plain paragraph', async () => {
    expect(slideBody(await markdown, 2)).toBe(
      '### Morning round\n\n' +
        '1. Feed the otters\n   - a) Fish first\n   - b) Then crabs\n2. Count the pups\n\n' +
        'Weather permitting:\n\n' +
        '1. Open the gate\n2. Log the visit',
    );
  });

  it('numbers from the layout\'s placeholder, and keeps the title unnumbered', async () => {
    const body = slideBody(await markdown, 3);
    expect(body).toMatch(/^### Evening round\n\n- iii\. Lock the den\n- iv\. Dim the lights\n\n/);
    // The bulleted placeholder is not numbered.
    expect(body).toMatch(/^(?:- )?Towels$/m);
    expect(body).not.toMatch(/\d[.)] (?:Towels|Buckets)/);
  });

  it('lets the shape\'s own list style override the layout', async () => {
    expect(slideBody(await markdown, 4)).toBe('1) First step\n2) Second step');
  });
});

describe('numberLabel', () => {
  it('writes every scheme family as PowerPoint shows it', () => {
    expect(['arabicPeriod', 'alphaUcParenBoth', 'romanUcPeriod', 'alphaLcPeriod', 'arabicPlain'].map((s) => numberLabel(s, 28))).toEqual([
      '28.',
      '(BB)',
      'XXVIII.',
      'bb.',
      '28',
    ]);
  });
});
