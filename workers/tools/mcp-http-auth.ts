// Authorization for MCP servers reached over http or sse. The transport's fetch is wrapped, so
// every request (the initial handshake, each tool call, the SSE stream) asks for the current
// header value: a token that expires mid-session is replaced without reconnecting. A 401 asks
// once for a fresh value and retries; a second 401 is the server's answer.
// The OAuth token sources of mcp-oauth.ts plug in as HttpAuthSource; nothing here knows where
// tokens come from.
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

export interface HttpAuthSource {
  /** The `Authorization` header value (e.g. `Bearer <token>`), fetched or refreshed as needed. */
  authorization(): Promise<string>;
  /** The server answered 401 to `rejected`: the next authorization() must not return it. */
  invalidate(rejected: string): void;
}

function withAuthorization(init: RequestInit | undefined, value: string): RequestInit {
  const headers = new Headers(init?.headers);
  headers.set('Authorization', value);
  return { ...init, headers };
}

export function withHttpAuth(source: HttpAuthSource, next: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const first = await source.authorization();
    const response = await next(url, withAuthorization(init, first));
    if (response.status !== 401) return response;
    source.invalidate(first);
    // The refused response is dropped; its body must be released or the socket stays busy.
    await response.body?.cancel();
    // MCP requests carry string bodies, so the same init can be sent again.
    return next(url, withAuthorization(init, await source.authorization()));
  };
}
