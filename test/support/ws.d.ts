// The part of `ws` that test/support/fake-slack.ts uses: ws ships no types, and @types/ws is not
// a dependency. Only the test config sees this file. It names no other export of ws: src/ reaches
// ws through @fastify/websocket's types, which would take a partial `WebSocket` declared here.
declare module 'ws' {
  import type { EventEmitter } from 'node:events';
  import type { IncomingMessage } from 'node:http';
  import type { Duplex } from 'node:stream';

  export class WebSocketServer extends EventEmitter {
    constructor(options: { noServer: true });
    handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer, callback: (socket: WebSocketServer.Socket) => void): void;
    close(): void;
  }

  export namespace WebSocketServer {
    /** A socket the server hands out, as far as the fake uses one (ws's WebSocket). */
    export interface Socket extends EventEmitter {
      /** 1 while open. */
      readonly readyState: number;
      send(data: string): void;
      ping(): void;
      terminate(): void;
    }
  }
}
