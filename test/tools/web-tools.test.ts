// web_fetch and web_search against HTTP servers started here on loopback; nothing leaves the host.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebConfig } from '../../src/config/app-config.schemas.js';
import { assertPublicHost, isPublicAddress } from '../../src/net/outbound-guard.js';
import { createWebTools } from '../../workers/tools/web-tools.js';
import { findTool } from '../sandbox/support.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

const PAGE = `<!doctype html><html><head><title> Test  Page </title><style>p{}</style><script>var hidden = 1;</script></head>
<body><h1>Heading</h1><p>Some <strong>bold</strong> text and a <a href="/x">link</a>.</p>
<table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>1</td><td>2</td></tr></tbody></table>
<noscript>enable js</noscript></body></html>`;

const tavilyBodies: unknown[] = [];
const routes: Record<string, Handler> = {
  '/page.html': (_q, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE),
  '/text': (_q, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('plain text\n'),
  '/json': (_q, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"a":[1,2]}'),
  '/latin1': (_q, res) => res.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' }).end(Buffer.from([0x63, 0x61, 0x66, 0xe9])),
  '/big': (_q, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('z'.repeat(10_000)),
  '/redirect': (_q, res) => res.writeHead(302, { location: '/text' }).end(),
  '/loop': (_q, res) => res.writeHead(302, { location: '/loop' }).end(),
  '/to-file': (_q, res) => res.writeHead(302, { location: 'file:///etc/passwd' }).end(),
  '/missing': (_q, res) => res.writeHead(404).end('nope'),
  '/image': (_q, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from([0x89, 0x50])),
  '/slow': () => {
    // Never answers: the fetch must time out.
  },
  '/tavily': (_q, res, body) => {
    tavilyBodies.push(JSON.parse(body));
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({ results: [{ title: 'First [hit]', url: 'https://example.com/1', content: 'one\n snippet' }, { title: '', url: 'https://example.com/2', content: '' }] }),
    );
  },
  '/searx/search': (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.searchParams.get('format') !== 'json') return void res.writeHead(400).end();
    const q = url.searchParams.get('q');
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({ results: [1, 2, 3].map((n) => ({ title: `${q} ${n}`, url: `https://example.org/${n}`, content: `about ${q}` })) }),
    );
  },
  '/broken/search': (_q, res) => res.writeHead(500).end('down'),
};

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const handler = routes[new URL(req.url ?? '/', 'http://localhost').pathname];
      if (handler) handler(req, res, body);
      else res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function web(overrides: Partial<WebConfig> = {}): WebConfig {
  return {
    fetch_enabled: true,
    fetch_timeout_seconds: 1,
    fetch_max_bytes: 4096,
    // The schema's default; these tests pass allowPrivateNetwork to createWebTools themselves.
    fetch_allow_private_networks: false,
    search_enabled: true,
    search_provider: 'tavily',
    search_max_results: 5,
    ...overrides,
  };
}

const fetchTool = (config = web()): StructuredToolInterface => findTool(createWebTools(config, { allowPrivateNetwork: true }), 'web_fetch');
const fetchUrl = (url: string, config?: WebConfig) => fetchTool(config).invoke({ url }) as Promise<string>;

describe('createWebTools', () => {
  it('offers only what the configuration enables', () => {
    expect(createWebTools(web()).map((t) => t.name)).toEqual(['web_fetch', 'web_search']);
    expect(createWebTools(web({ search_enabled: false })).map((t) => t.name)).toEqual(['web_fetch']);
    expect(createWebTools(web({ fetch_enabled: false, search_enabled: false }))).toEqual([]);
  });
});

describe('web_fetch', () => {
  it('turns HTML into Markdown with the title, tables kept and scripts dropped', async () => {
    const out = await fetchUrl(`${base}/page.html`);
    expect(out.startsWith(`URL: ${base}/page.html\nTitle: Test Page\n\n# Heading\n\nSome **bold** text and a [link](/x).`)).toBe(true);
    expect(out).toContain('| a   | b   |\n| --- | --- |\n| 1   | 2   |');
    expect(out).not.toMatch(/hidden|enable js|p\{\}/);
  });

  it('passes text through, pretty-prints JSON and honours the charset', async () => {
    expect(await fetchUrl(`${base}/text`)).toBe(`URL: ${base}/text\n\nplain text\n`);
    expect(await fetchUrl(`${base}/json`)).toBe(`URL: ${base}/json\n\n{\n  "a": [\n    1,\n    2\n  ]\n}`);
    expect(await fetchUrl(`${base}/latin1`)).toBe(`URL: ${base}/latin1\n\ncafé`);
  });

  it('follows redirects, reporting where it ended, but not into another scheme or forever', async () => {
    expect(await fetchUrl(`${base}/redirect`)).toBe(`URL: ${base}/text\n\nplain text\n`);
    await expect(fetchUrl(`${base}/loop`)).rejects.toThrow(/redirected more than 5 times/);
    await expect(fetchUrl(`${base}/to-file`)).rejects.toThrow(/Only http and https/);
  });

  it('stops at the size limit with a note', async () => {
    const out = await fetchUrl(`${base}/big`);
    expect(out).toContain('z'.repeat(4096));
    expect(out).not.toContain('z'.repeat(4097));
    expect(out).toContain('[the page was larger than the download limit; only its beginning was read]');
  });

  it('reports HTTP errors, time-outs, unsupported types and bad URLs', async () => {
    await expect(fetchUrl(`${base}/missing`)).rejects.toThrow(`${base}/missing answered HTTP 404 Not Found.`);
    await expect(fetchUrl(`${base}/slow`)).rejects.toThrow(`${base}/slow did not answer within 1 s.`);
    await expect(fetchUrl(`${base}/image`)).rejects.toThrow(/is image\/png; web_fetch reads web pages, text and JSON only/);
    await expect(fetchUrl('file:///etc/passwd')).rejects.toThrow('Only http and https URLs can be fetched, not file.');
    await expect(fetchUrl('ftp://example.com/x')).rejects.toThrow(/not ftp/);
    await expect(fetchUrl('not a url')).rejects.toThrow(/is not a valid URL/);
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadPort = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    await expect(fetchUrl(`http://127.0.0.1:${deadPort}/`)).rejects.toThrow(`Could not fetch http://127.0.0.1:${deadPort}/: ECONNREFUSED.`);
  });

  it('refuses loopback and private addresses unless allowed', async () => {
    const guarded = findTool(createWebTools(web()), 'web_fetch');
    await expect(guarded.invoke({ url: `${base}/text` })).rejects.toThrow(/127\.0\.0\.1 is a local or private address/);
    await expect(guarded.invoke({ url: `http://localhost:${new URL(base).port}/text` })).rejects.toThrow(/localhost is a local or private address/);
    const local = [
      '127.0.0.1', '10.1.2.3', '172.20.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '255.255.255.255', '224.0.0.1',
      '::', '::1', 'fe80::1', 'fd00::1', 'fd00:ec2::254', 'ff02::1',
      // IPv6 forms that carry a local IPv4 address.
      '::ffff:127.0.0.1', '::ffff:7f00:1', '::7f00:1', '::127.0.0.1', '64:ff9b::7f00:1', '64:ff9b::a9fe:a9fe', '::ffff:0:7f00:1',
      '2002:7f00:1::1', '2002:a9fe:a9fe::', '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      'not-an-address', '',
    ];
    for (const address of local) expect(isPublicAddress(address), address).toBe(false);
    for (const address of ['93.184.215.14', '1.1.1.1', '2606:4700:4700::1111', '::ffff:1.1.1.1', '64:ff9b::101:101', '2002:101:101::1']) {
      expect(isPublicAddress(address), address).toBe(true);
    }
    await expect(assertPublicHost(new URL('http://[::1]:8080/'))).rejects.toThrow(/private/);
    await expect(assertPublicHost(new URL('http://169.254.169.254/latest/meta-data'))).rejects.toThrow(/private/);
    await expect(assertPublicHost(new URL('http://[::ffff:0:7f00:1]/'))).rejects.toThrow(/private/);
    await expect(assertPublicHost(new URL('http://[64:ff9b::7f00:1]/'))).rejects.toThrow(/private/);
    await expect(assertPublicHost(new URL('http://1.1.1.1/'))).resolves.toBeUndefined();
  });

  it('connects only to the address it checked: a name that resolves public first and private next is refused', async () => {
    const port = new URL(base).port;
    let answers = 0;
    // Stands in for a rebinding DNS server: the check sees a public address, the connection 127.0.0.1.
    const resolver = (_host: string, callback: (err: Error | null, found: { address: string; family: number }[]) => void) => {
      answers += 1;
      callback(null, [{ address: answers === 1 ? '93.184.215.14' : '127.0.0.1', family: 4 }]);
    };
    const rebinding = findTool(createWebTools(web(), { resolver }), 'web_fetch');
    await expect(rebinding.invoke({ url: `http://rebind.test:${port}/text` })).rejects.toThrow(/rebind\.test is a local or private address/);
  });
});

describe('web_search', () => {
  it('posts to Tavily with the key from the environment and lists the results', async () => {
    process.env.WARREN_TEST_TAVILY_KEY = 'tvly-test';
    try {
      const tool = findTool(createWebTools(web({ search_api_key: '$WARREN_TEST_TAVILY_KEY', search_url: `${base}/tavily`, search_max_results: 3 })), 'web_search');
      const out = await tool.invoke({ query: 'warren agents' });
      expect(tavilyBodies.at(-1)).toEqual({ api_key: 'tvly-test', query: 'warren agents', max_results: 3 });
      expect(out).toBe('Results for "warren agents":\n\n1. [First hit](https://example.com/1)\n   one snippet\n2. [https://example.com/2](https://example.com/2)');
    } finally {
      delete process.env.WARREN_TEST_TAVILY_KEY;
    }
  });

  it('says which key is missing', async () => {
    const tool = findTool(createWebTools(web({ search_api_key: '$WARREN_TEST_NO_SUCH_KEY', search_url: `${base}/tavily` })), 'web_search');
    await expect(tool.invoke({ query: 'x' })).rejects.toThrow(/environment variable WARREN_TEST_NO_SUCH_KEY \(web\.search_api_key\) is not set/);
    const keyless = findTool(createWebTools(web({ search_url: `${base}/tavily` })), 'web_search');
    await expect(keyless.invoke({ query: 'x' })).rejects.toThrow(/web\.search_api_key is not set/);
  });

  it('queries SearXNG as JSON and keeps at most search_max_results', async () => {
    const tool = findTool(createWebTools(web({ search_provider: 'searxng', search_url: `${base}/searx`, search_max_results: 2 })), 'web_search');
    expect(await tool.invoke({ query: 'otters & co' })).toBe(
      'Results for "otters & co":\n\n1. [otters & co 1](https://example.org/1)\n   about otters & co\n2. [otters & co 2](https://example.org/2)\n   about otters & co',
    );
  });

  it("takes DeerFlow's max_results, within search_max_results", async () => {
    const tool = findTool(createWebTools(web({ search_provider: 'searxng', search_url: `${base}/searx`, search_max_results: 2 })), 'web_search');
    expect(await tool.invoke({ query: 'otters', max_results: 1 })).toBe('Results for "otters":\n\n1. [otters 1](https://example.org/1)\n   about otters');
    expect((await tool.invoke({ query: 'otters', max_results: 50 })) as string).toContain('2. [otters 2]');
    expect((await tool.invoke({ query: 'otters', max_results: null })) as string).toContain('2. [otters 2]');
  });

  it('reports an unconfigured or failing provider', async () => {
    const unset = findTool(createWebTools(web({ search_provider: 'searxng' })), 'web_search');
    await expect(unset.invoke({ query: 'x' })).rejects.toThrow(/web\.search_url/);
    const broken = findTool(createWebTools(web({ search_provider: 'searxng', search_url: `${base}/broken` })), 'web_search');
    await expect(broken.invoke({ query: 'x' })).rejects.toThrow('The search provider answered HTTP 500.');
  });
});
