/**
 * Starts Azurite (the Azure Storage emulator) as a child process, in memory, on ports the OS
 * picks, and hands back a connection string for it. Used by the test suite's global setup and
 * by `drover sim`; nothing here runs in Azure.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';

export const AZURITE_ACCOUNT = 'devstoreaccount1';
// Azurite's well-known development key (public, documented in the Azurite README).
export const AZURITE_KEY =
  'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

export interface AzuriteHandle {
  connectionString: string;
  ports: { blob: number; queue: number; table: number };
  stop(): Promise<void>;
}

export function azuriteConnectionString(ports: { blob: number; queue: number; table: number }, protocol: 'http' | 'https' = 'http'): string {
  const base = `${protocol}://127.0.0.1`;
  return [
    `DefaultEndpointsProtocol=${protocol}`,
    `AccountName=${AZURITE_ACCOUNT}`,
    `AccountKey=${AZURITE_KEY}`,
    `BlobEndpoint=${base}:${ports.blob}/${AZURITE_ACCOUNT}`,
    `QueueEndpoint=${base}:${ports.queue}/${AZURITE_ACCOUNT}`,
    `TableEndpoint=${base}:${ports.table}/${AZURITE_ACCOUNT}`,
  ].join(';') + ';';
}

/**
 * Loaded into the Azurite process before Azurite itself. Ctrl+C in a terminal reaches the whole
 * process group: Azurite must not be the first to go, since its parent stops the host first and
 * Azurite last (with SIGTERM). And it must not outlive its parent, however that one ends.
 */
const WATCHDOG = [
  "process.on('SIGINT', () => undefined);",
  'const parent = process.ppid;',
  'setInterval(() => { if (process.ppid !== parent) process.exit(0); }, 250).unref();',
].join(' ');

function azuriteBin(): string {
  const require = createRequire(import.meta.url);
  const pkgJson = require.resolve('azurite/package.json');
  return path.join(path.dirname(pkgJson), 'dist', 'src', 'azurite.js');
}

export interface AzuriteOptions {
  timeoutMs?: number;
  /** Serve HTTPS with this certificate (PEM files); needed for bearer tokens. */
  tls?: { certFile: string; keyFile: string };
  /** Accept bearer tokens (Azurite's `--oauth basic`: claims are checked, signatures are not). */
  oauth?: boolean;
}

/** Starts Azurite and resolves once all three services listen; rejects after `timeoutMs`. */
export async function startAzurite(options: AzuriteOptions = {}): Promise<AzuriteHandle> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--import',
      `data:text/javascript,${encodeURIComponent(WATCHDOG)}`,
      azuriteBin(),
      '--silent',
      '--inMemoryPersistence',
      '--skipApiVersionCheck',
      '--disableTelemetry',
      '--blobHost', '127.0.0.1', '--blobPort', '0',
      '--queueHost', '127.0.0.1', '--queuePort', '0',
      '--tableHost', '127.0.0.1', '--tablePort', '0',
      ...(options.tls ? ['--cert', options.tls.certFile, '--key', options.tls.keyFile] : []),
      ...(options.oauth ? ['--oauth', 'basic'] : []),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );

  const ports: Partial<Record<'blob' | 'queue' | 'table', number>> = {};
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`Azurite did not start within ${timeoutMs} ms; it printed:\n${output}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      for (const m of output.matchAll(/Azurite (Blob|Queue|Table) service is successfully listening at https?:\/\/[^:]+:(\d+)/g)) {
        ports[m[1]!.toLowerCase() as 'blob' | 'queue' | 'table'] = Number(m[2]);
      }
      if (ports.blob && ports.queue && ports.table) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Azurite exited with code ${code} before it listened:\n${output}`));
    });
  });
  child.removeAllListeners('exit');
  // A parent that exits in a hurry (process.exit) takes Azurite with it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const resolved = ports as { blob: number; queue: number; table: number };
  return {
    connectionString: azuriteConnectionString(resolved, options.tls ? 'https' : 'http'),
    ports: resolved,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) {
          process.off('exit', killOnExit);
          return resolve();
        }
        // Azurite closes its servers on SIGTERM; one that takes longer than a moment is killed.
        const kill = setTimeout(() => child.kill('SIGKILL'), 600);
        child.once('exit', () => {
          clearTimeout(kill);
          process.off('exit', killOnExit);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}
