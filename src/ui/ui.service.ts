// Serves the bundles of src/ui/ui-bundles.ts as LangGraph's server does: `POST /ui/{graph}` answers
// the HTML that the SDK's LoadExternalComponent puts in a shadow root (a stylesheet link per CSS
// file, then the script that renders the named component into it), and the files behind it.
import path from 'node:path';
import type { UiBundle, UiBundles, UiFile } from './ui-bundles.js';
import { UiComponentNotFoundError, UiFileNotFoundError, UiNotFoundError } from './ui.errors.js';

/** Where the page must fetch the files from: the request's `Host` and the path the routes sit under. */
export interface UiOrigin {
  host: string;
  /** `` at the server root, `/api/langgraph` under the runtime prefix. */
  base: string;
}

export interface UiService {
  /** The HTML that loads component `name` of `graph`'s bundle; `{{shadowRootId}}` is the SDK's to fill in. */
  snippet(graph: string, name: string, origin: UiOrigin): string;
  /** One bundled file, with its content type. */
  file(graph: string, basename: string): { contents: Buffer; contentType: string };
}

/** The types a bundle holds (esbuild writes `.js` and `.css`; fonts or images only through loaders). */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/** A JSON string that cannot close the single-quoted attribute or the tag it is written into. */
const attributeSafeJson = (value: string): string =>
  JSON.stringify(value).replace(/[<>&']/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** LangGraph's loopback rule: plain http for localhost; elsewhere the page's own scheme (`//host`). */
function schemeFor(host: string): string {
  const name = host.replace(/:\d+$/, '');
  return name === 'localhost' || name === '127.0.0.1' ? 'http:' : '';
}

export function createUiService(bundles: UiBundles): UiService {
  const bundleOf = (graph: string): UiBundle => {
    const bundle = bundles.get(graph);
    if (!bundle?.files.length) throw new UiNotFoundError(`No generative UI for graph "${graph}": langgraph.json's "ui" does not name it.`);
    return bundle;
  };
  return {
    snippet(graph, name, origin) {
      const { files, components } = bundleOf(graph);
      if (components && !components.has(name)) {
        throw new UiComponentNotFoundError(`The UI of graph "${graph}" has no component "${name}"; it has ${[...components].map((c) => `"${c}"`).join(', ')}.`);
      }
      const url = (file: UiFile) => `${schemeFor(origin.host)}//${origin.host}${origin.base}/ui/${graph}/${file.basename}`;
      const lines = files.filter((f) => path.extname(f.basename) === '.css').map((f) => `<link rel="stylesheet" href="${url(f)}" />`);
      const script = files.find((f) => path.extname(f.basename) === '.js');
      // The bundle's global is named after the graph as @langchain/langgraph-ui names it.
      const global = `__LGUI_${graph.replace(/[^a-zA-Z0-9]/g, '_')}`;
      if (script) lines.push(`<script src="${url(script)}" onload='${global}.render(${attributeSafeJson(name)}, "{{shadowRootId}}")'></script>`);
      return lines.join('\n');
    },
    file(graph, basename) {
      const file = bundleOf(graph).files.find((f) => f.basename === basename);
      if (!file) throw new UiFileNotFoundError(`The UI bundle of graph "${graph}" has no file "${basename}".`);
      return { contents: file.contents, contentType: CONTENT_TYPES[path.extname(basename)] ?? 'text/plain' };
    },
  };
}
