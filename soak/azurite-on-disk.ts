/**
 * Azurite with on-disk persistence (`--location`) on fixed ports, so it can be stopped and
 * started again with the same data and the same connection string.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { azuriteConnectionString } from '../sim/azurite.js';

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface DiskAzurite {
  connectionString: string;
  restart(): Promise<void>;
  /** Stops it and starts it again with nothing: what a restart of an in-memory Azurite does. */
  restartEmpty(): Promise<void>;
  stop(): Promise<void>;
}

export async function startDiskAzurite(location: string): Promise<DiskAzurite> {
  const ports = { blob: await freePort(), queue: await freePort(), table: await freePort() };
  const bin = path.join(path.dirname(createRequire(import.meta.url).resolve('azurite/package.json')), 'dist', 'src', 'azurite.js');
  let child: ChildProcess | undefined;
  const start = async () => {
    const c = spawn(
      process.execPath,
      [bin, '--silent', '--skipApiVersionCheck', '--disableTelemetry', '--location', location,
        '--blobHost', '127.0.0.1', '--blobPort', String(ports.blob),
        '--queueHost', '127.0.0.1', '--queuePort', String(ports.queue),
        '--tableHost', '127.0.0.1', '--tablePort', String(ports.table)],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = c;
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`Azurite did not start:\n${output}`)), 30_000);
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if ((output.match(/successfully listening/g) ?? []).length >= 3) {
          clearTimeout(timer);
          resolve();
        }
      };
      c.stdout?.on('data', onData);
      c.stderr?.on('data', onData);
    });
  };
  const stop = () =>
    new Promise<void>((resolve) => {
      const c = child;
      if (!c || c.exitCode !== null) return resolve();
      c.once('exit', () => resolve());
      c.kill('SIGTERM');
    });
  await start();
  return {
    connectionString: azuriteConnectionString(ports),
    async restart() {
      await stop();
      await start();
    },
    async restartEmpty() {
      await stop();
      rmSync(location, { recursive: true, force: true });
      await start();
    },
    stop,
  };
}
