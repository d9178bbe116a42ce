// A TCP proxy that delays every byte by a settable time, both ways: network latency on one
// service's port for the processes that reach it through here. The kernel on these machines
// has no queueing disciplines (`tc qdisc add … netem` answers "Specified qdisc kind is
// unknown"), so the delay is made here, on real sockets, instead of by netem.
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface DelayProxy {
  /** redis://127.0.0.1:<port>, or the scheme given. */
  url: string;
  /** The one-way delay for bytes sent from now on, in ms. */
  setDelay(ms: number): void;
  close(): Promise<void>;
}

/** Forwards `chunk`s to `to` after the delay, in order, whatever the delay was for earlier ones. */
function delayedPipe(from: net.Socket, to: net.Socket, delay: () => number): void {
  let lastDue = 0;
  from.on('data', (chunk: Buffer) => {
    const due = Math.max(Date.now() + delay(), lastDue);
    lastDue = due;
    const send = () => {
      if (!to.destroyed) to.write(chunk);
    };
    if (due <= Date.now()) send();
    else setTimeout(send, due - Date.now());
  });
}

export async function startDelayProxy(target: { host: string; port: number }, scheme = 'redis'): Promise<DelayProxy> {
  let delayMs = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      // Either side closing or failing (the target killed, say) closes both: the client reconnects.
      socket.on('error', () => undefined);
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    delayedPipe(client, upstream, () => delayMs);
    delayedPipe(upstream, client, () => delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    setDelay: (ms) => {
      delayMs = ms;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
