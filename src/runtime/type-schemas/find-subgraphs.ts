// Which values of a graph's file are its subgraphs, read from the syntax: the graph export's
// declaration and every `.addNode(name, x)` call in it (or in statements that add nodes to the
// builder it compiles). An identifier inside `x` that names a top-level variable or an import of
// the file is a candidate; the compiler later keeps only the candidates whose type is a graph.
// Namespaces follow LangGraph's server: `graph|child|grandchild`.
import ts from 'typescript';

export interface SubgraphCandidate {
  /** `<export>|<node>[|<node>…]`, as `/subgraphs` names a subgraph. */
  namespace: string;
  /** The file's own name for the value (a top-level variable or an imported binding). */
  identifiers: string[];
}

interface TopLevel {
  /** Top-level variables and functions by name: the node whose body may add nodes. */
  declarations: Map<string, ts.Node>;
  /** Names bound by an import of the file. */
  imports: Set<string>;
  /** `x.addNode(…)…;` statements by the identifier the chain starts from. */
  statementsOn: Map<string, ts.Node[]>;
  /** `export { local as exported }` and `export default <identifier>`: exported name → local name. */
  exportAliases: Map<string, string>;
  defaultExport?: ts.Node;
}

function chainRoot(expression: ts.Expression): string | undefined {
  let current: ts.Expression = expression;
  for (;;) {
    if (ts.isCallExpression(current) || ts.isPropertyAccessExpression(current) || ts.isNonNullExpression(current)) current = current.expression;
    else if (ts.isParenthesizedExpression(current) || ts.isAwaitExpression(current)) current = current.expression;
    else return ts.isIdentifier(current) ? current.text : undefined;
  }
}

function readTopLevel(source: ts.SourceFile): TopLevel {
  const top: TopLevel = { declarations: new Map(), imports: new Set(), statementsOn: new Map(), exportAliases: new Map() };
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement)) {
      for (const decl of statement.declarationList.declarations) {
        if (ts.isIdentifier(decl.name) && decl.initializer) top.declarations.set(decl.name.text, decl.initializer);
      }
    } else if (ts.isFunctionDeclaration(statement) && statement.name && statement.body) {
      top.declarations.set(statement.name.text, statement.body);
    } else if (ts.isImportDeclaration(statement) && statement.importClause && !statement.importClause.isTypeOnly) {
      const clause = statement.importClause;
      if (clause.name) top.imports.add(clause.name.text);
      if (clause.namedBindings && ts.isNamedImports(clause.namedBindings)) {
        for (const element of clause.namedBindings.elements) if (!element.isTypeOnly) top.imports.add(element.name.text);
      }
    } else if (ts.isExpressionStatement(statement)) {
      const root = chainRoot(statement.expression);
      if (root) top.statementsOn.set(root, [...(top.statementsOn.get(root) ?? []), statement]);
    } else if (ts.isExportDeclaration(statement) && !statement.moduleSpecifier && statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      for (const element of statement.exportClause.elements) top.exportAliases.set(element.name.text, (element.propertyName ?? element.name).getText(source));
    } else if (ts.isExportAssignment(statement) && !statement.isExportEquals) {
      if (ts.isIdentifier(statement.expression)) top.exportAliases.set('default', statement.expression.text);
      else top.defaultExport = statement.expression;
    }
  }
  return top;
}

function nodeName(arg: ts.Expression | undefined): string | undefined {
  return arg && ts.isStringLiteralLike(arg) ? arg.text : undefined;
}

/** Every identifier under `node` (itself included) that names a value of the file. */
function fileValuesUnder(node: ts.Node, top: TopLevel): string[] {
  const found: string[] = [];
  const visit = (current: ts.Node): void => {
    if (ts.isIdentifier(current) && (top.declarations.has(current.text) || top.imports.has(current.text)) && !found.includes(current.text)) {
      found.push(current.text);
    }
    ts.forEachChild(current, visit);
  };
  visit(node);
  return found;
}

/** `addNode(name, x)` calls under `node`. */
function addNodeCalls(node: ts.Node): ts.CallExpression[] {
  const calls: ts.CallExpression[] = [];
  const visit = (current: ts.Node): void => {
    if (ts.isCallExpression(current) && ts.isPropertyAccessExpression(current.expression) && current.expression.name.text === 'addNode') calls.push(current);
    ts.forEachChild(current, visit);
  };
  visit(node);
  // In source order: a chain's outermost call is found first, but names the last node.
  return calls.sort((a, b) => (a.arguments[0]?.pos ?? 0) - (b.arguments[0]?.pos ?? 0));
}

/**
 * The subgraph candidates of `exportName` in `source`, depth first. The compiler decides later
 * which candidate identifiers are graphs; a node whose argument names several keeps the first.
 */
export function findSubgraphCandidates(source: ts.SourceFile, exportName: string): SubgraphCandidate[] {
  const top = readTopLevel(source);
  const out: SubgraphCandidate[] = [];
  const walk = (local: string | undefined, body: ts.Node | undefined, namespace: string, seen: Set<string>): void => {
    if (!body) return;
    // The builder a graph is compiled from may be another variable (`const graph = builder.compile()`),
    // and nodes may be added to it in statements of their own (`builder.addNode(…)`).
    const scopes: ts.Node[] = [body, ...(local ? (top.statementsOn.get(local) ?? []) : [])];
    const calls = scopes.flatMap(addNodeCalls);
    if (calls.length === 0) {
      for (const name of fileValuesUnder(body, top)) {
        if (seen.has(name) || !top.declarations.has(name)) continue;
        walk(name, top.declarations.get(name), namespace, new Set([...seen, name]));
      }
      return;
    }
    for (const call of calls) {
      const [nameArg, action] = call.arguments;
      const node = nodeName(nameArg);
      if (!node || !action) continue;
      const identifiers = fileValuesUnder(action, top).filter((name) => !seen.has(name));
      if (identifiers.length === 0) continue;
      const childNamespace = `${namespace}|${node}`;
      out.push({ namespace: childNamespace, identifiers });
      for (const name of identifiers) walk(name, top.declarations.get(name), childNamespace, new Set([...seen, name]));
    }
  };
  const local = top.exportAliases.get(exportName) ?? exportName;
  const body = exportName === 'default' && top.defaultExport ? top.defaultExport : top.declarations.get(local);
  walk(local, body, exportName, new Set([local]));
  return out;
}
