// A TCP server that accepts connections and never answers: a storage endpoint gone silent.
import { createServer, type Socket } from 'node:net';

export interface SilentServer {
  port: number;
  /** Connections accepted so far. */
  connections(): number;
}

/** Runs `use` against a silent server on a free loopback port, closed (its sockets too) afterwards. */
export async function withSilentServer<T>(use: (server: SilentServer) => Promise<T>): Promise<T> {
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await use({ port: (server.address() as { port: number }).port, connections: () => sockets.size });
  } finally {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
