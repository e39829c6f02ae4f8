import { createServer, type Socket } from 'node:net';

/** A TCP server on 127.0.0.1 that accepts every connection and never answers: a peer that went quiet. */
export interface SilentServer {
  readonly url: string;
  readonly port: number;
  /** Connections accepted so far (one per HTTP attempt when each timed-out attempt closes its socket). */
  connections(): number;
  close(): Promise<void>;
}

export async function startSilentServer(): Promise<SilentServer> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    port: address.port,
    connections: () => accepted,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
