// The component names a `ui` file's default export holds, read from its source with TypeScript's
// checker (already a dependency), so `POST /ui/{graph}` can answer 404 for a name the bundle
// would render as `undefined` in the page. The file alone is read (no imports resolved, no lib):
// fast, and an export whose names only its imports could tell gives null: every name is accepted.
import { createRequire } from 'node:module';

type TypeScript = typeof import('typescript');

/** The default export's property names, or null when they cannot be known from the file alone. */
export function componentNames(file: string): ReadonlySet<string> | null {
  // Required here only: a start without `ui` never loads the compiler for this.
  const ts = createRequire(import.meta.url)('typescript') as TypeScript;
  const program = ts.createProgram([file], { noLib: true, noResolve: true, types: [], allowJs: true, noEmit: true, jsx: ts.JsxEmit.Preserve });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const moduleSymbol = source && checker.getSymbolAtLocation(source);
  const exported = moduleSymbol && checker.getExportsOfModule(moduleSymbol).find((s) => s.escapedName === 'default');
  if (!exported) return null;
  const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
  const type = checker.getTypeOfSymbol(symbol);
  // `any` (an unresolved import, a spread of one) or an index signature: names are open.
  if (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown) || checker.getIndexInfosOfType(type).length > 0) return null;
  const names = checker.getPropertiesOfType(type).map((p) => p.name);
  return names.length > 0 ? new Set(names) : null;
}
