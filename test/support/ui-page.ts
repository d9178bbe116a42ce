// What a browser page does with a generative UI snippet (the HTML the SDK's `getComponent`
// answers), in a VM context standing in for the page: the SDK's react-ui module installs its
// component store and `require` on the page's `window`; the snippet's script is loaded, its
// `onload` renders the component into the store under the shadow root's id, as
// LoadExternalComponent does; the component comes back for React to render on the server.
import { createContext, runInContext } from 'node:vm';
import type { FunctionComponent } from 'react';

/** The page's `window`, one per test process: the SDK's react-ui module binds to it once, when loaded. */
const page: Record<PropertyKey, unknown> = {};

export interface UiPage {
  /** The SDK's react-ui module, bound to this page (`experimental_loadShare` and the like). */
  reactUi: typeof import('@langchain/langgraph-sdk/react-ui');
  /** Loads `html`'s script and runs its `onload`; the component it put in the store, and where. */
  mount(html: string, shadowRootId?: string): Promise<{ scriptUrl: string; comp: FunctionComponent<never>; rendered: unknown[] }>;
}

/** Sets the page up (before anything imports the SDK's react-ui module: it reads `window` as it loads). */
export async function openUiPage(): Promise<UiPage> {
  (globalThis as { window?: unknown }).window = page;
  const reactUi = await import('@langchain/langgraph-sdk/react-ui');
  return {
    reactUi,
    async mount(html, shadowRootId = 'child-shadow-r1') {
      const filled = html.replace('{{shadowRootId}}', shadowRootId);
      const scriptUrl = /<script src="([^"]+)"/.exec(filled)?.[1] as string;
      const onload = /onload='([^']+)'/.exec(filled)?.[1] as string;
      const rendered: unknown[] = [];
      const context = createContext({
        window: page,
        document: {
          getElementById: (id: string) => (id === shadowRootId ? { shadowRoot: { appendChild: (el: unknown) => rendered.push(el) } } : null),
          createElement: (tag: string) => ({ tagName: tag.toUpperCase() }),
        },
      });
      // The bundle's `require` is the page's, looked up on its global object.
      Object.defineProperty(context, Symbol.for('LGUI_REQUIRE'), { value: page[Symbol.for('LGUI_REQUIRE')] });
      runInContext(await (await fetch(scriptUrl)).text(), context);
      runInContext(onload, context);
      const store = page[Symbol.for('LGUI_EXT_STORE')] as { getBoundStore(id: string): { getSnapshot(): { comp: FunctionComponent<never>; target: unknown } | undefined } };
      const snapshot = store.getBoundStore(shadowRootId).getSnapshot();
      if (!snapshot || snapshot.target !== rendered[0]) throw new Error(`The snippet's script rendered nothing into #${shadowRootId}`);
      return { scriptUrl, comp: snapshot.comp, rendered };
    },
  };
}

/** Leaves the process's global object as it was. */
export function closeUiPage(): void {
  delete (globalThis as { window?: unknown }).window;
}
