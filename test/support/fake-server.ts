// What every fake chat platform's server does to start and stop: it listens on a free loopback
// port, and closes with its WebSocket clients dropped and its open connections cut, so a test
// leaves nothing behind.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listens on a free port of 127.0.0.1; the port. */
export async function listenLocal(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** Closes the server, after dropping `sockets` and closing `wss` (a WebSocket server on it), when given. */
export function closeFake(server: Server, sockets: Iterable<{ terminate(): void }> = [], wss?: { close(): void }): Promise<void> {
  return new Promise<void>((resolve) => {
    for (const socket of sockets) socket.terminate();
    wss?.close();
    server.closeAllConnections();
    server.close(() => resolve());
  });
}
