// Repairs on mammoth's document tree before it becomes HTML: header rows for tables, emphasis
// that Word split mid-word, links to bookmarks inside the document, and tables nested in a cell.
// The tree is mammoth's plain objects ({type, children, ...}); only documented fields are read.

type Node = Record<string, unknown>;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null;
}

function childrenOf(node: Node): unknown[] | null {
  return Array.isArray(node.children) ? (node.children as unknown[]) : null;
}

/** Every node of the tree, parents before their children. */
function* walk(root: unknown): Generator<Node> {
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const node = pending.pop();
    if (!isNode(node)) continue;
    yield node;
    const children = childrenOf(node);
    if (children) for (let i = children.length - 1; i >= 0; i--) pending.push(children[i]);
  }
}

/** Marks a table's first row as its header unless one is marked: a pipe table needs a header. */
function promoteHeaderRow(table: Node): void {
  const rows = (childrenOf(table) ?? []).filter((c): c is Node => isNode(c) && c.type === 'tableRow');
  const first = rows[0];
  if (first && !rows.some((r) => r.isHeader === true)) first.isHeader = true;
}

const RUN_MARKS = ['isBold', 'isItalic', 'isUnderline', 'isStrikethrough', 'isAllCaps', 'isSmallCaps', 'verticalAlignment'] as const;

function sameMarks(a: Node, b: Node): boolean {
  return RUN_MARKS.every((mark) => a[mark] === b[mark]);
}

function edgeText(run: Node, end: 'first' | 'last'): Node | null {
  const children = childrenOf(run) ?? [];
  const child = end === 'first' ? children[0] : children.at(-1);
  return isNode(child) && child.type === 'text' && typeof child.value === 'string' ? child : null;
}

function runText(run: Node): string {
  return (childrenOf(run) ?? []).map((c) => (isNode(c) && typeof c.value === 'string' ? c.value : '')).join('');
}

/**
 * Word splits runs anywhere (spell checking, revisions), and a mark that starts or stops inside a
 * word comes out as `*ita~~li~~c*`. Where differently marked runs meet inside a word, the piece
 * of the word on the side holding less of it moves to the other run, so marks wrap whole words.
 */
function mergeSplitWords(parent: Node): void {
  const children = childrenOf(parent);
  if (!children) return;
  let previous: Node | null = null;
  for (const child of children) {
    if (!isNode(child) || child.type !== 'run') {
      previous = null;
      continue;
    }
    if (previous && !sameMarks(previous, child)) {
      const [tail, head] = [edgeText(previous, 'last'), edgeText(child, 'first')];
      const left = tail ? (/[\p{L}\p{N}]+$/u.exec(String(tail.value))?.[0] ?? '') : '';
      const right = head ? (/^[\p{L}\p{N}]+/u.exec(String(head.value))?.[0] ?? '') : '';
      if (tail && head && left && right) {
        if (left.length >= right.length) {
          tail.value = String(tail.value) + right;
          head.value = String(head.value).slice(right.length);
        } else {
          head.value = left + String(head.value);
          tail.value = String(tail.value).slice(0, -left.length);
        }
      }
    }
    // A run emptied by the move is skipped: the word may go on into the next one.
    if (runText(child) !== '' || !previous) previous = child;
  }
}

/** A link to a bookmark inside the document becomes its text: Markdown has no anchors to point at. */
function unlinkInternal(parent: Node): void {
  const children = childrenOf(parent);
  if (!children) return;
  for (let i = 0; i < children.length; i++) {
    const child = children[i];
    if (isNode(child) && child.type === 'hyperlink' && typeof child.anchor === 'string' && !child.href) {
      const inner = childrenOf(child) ?? [];
      children.splice(i, 1, ...inner);
      i += inner.length - 1;
    }
  }
}

function textParagraph(text: string, italic: boolean): Node {
  const run: Node = {
    type: 'run',
    children: [{ type: 'text', value: text }],
    styleId: null,
    styleName: null,
    isBold: false,
    isUnderline: false,
    isItalic: italic,
    isStrikethrough: false,
    isAllCaps: false,
    isSmallCaps: false,
    verticalAlignment: 'baseline',
    font: null,
    fontSize: null,
    highlight: null,
  };
  return { type: 'paragraph', children: [run], styleId: null, styleName: null, numbering: null, alignment: null, indent: { start: null, end: null, firstLine: null, hanging: null } };
}

/**
 * A table inside a table cell cannot be a pipe table cell. Each one moves out to just after the
 * outermost table, under a line naming the cell it came from; the cell says where it went.
 */
function liftNestedTables(parent: Node, counter: { n: number }): void {
  const children = childrenOf(parent);
  if (!children) return;
  for (let i = 0; i < children.length; i++) {
    const table = children[i];
    if (!isNode(table) || table.type !== 'table') continue;
    const lifted: Node[] = [];
    const rows = (childrenOf(table) ?? []).filter((r): r is Node => isNode(r) && r.type === 'tableRow');
    rows.forEach((row, r) => {
      const cells = (childrenOf(row) ?? []).filter((c): c is Node => isNode(c) && c.type === 'tableCell');
      cells.forEach((cell, c) => {
        const content = childrenOf(cell) ?? [];
        for (let k = 0; k < content.length; k++) {
          const inner = content[k];
          if (!isNode(inner) || inner.type !== 'table') continue;
          const n = ++counter.n;
          content.splice(k, 1, textParagraph(`(nested table ${n}, below)`, true));
          lifted.push(textParagraph(`Nested table ${n} (row ${r + 1}, column ${c + 1} of the table above):`, true), inner);
        }
      });
    });
    // The lifted tables are walked in turn, so tables nested deeper come out too.
    children.splice(i + 1, 0, ...lifted);
  }
}

/** mammoth's transformDocument: every repair above, in one pass over the tree. */
export function repairDocument(document: unknown): unknown {
  const counter = { n: 0 };
  for (const node of walk(document)) {
    if (node.type === 'table') promoteHeaderRow(node);
    // A table's cells are emptied of tables by its parent, before the walk reaches them.
    liftNestedTables(node, counter);
    unlinkInternal(node);
    mergeSplitWords(node);
  }
  return document;
}
