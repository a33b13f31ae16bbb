/**
 * Setup for the `unit` project: its files do no I/O, so opening a socket or starting a child
 * process fails the test instead of quietly making it an integration test.
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

class UnitIoError extends Error {
  override name = 'UnitIoError';
}

const refuse = (what: string) => () => {
  throw new UnitIoError(`${what} in a unit test: move the file to the integration project (vitest.config.ts)`);
};

net.Socket.prototype.connect = refuse('a socket connection') as typeof net.Socket.prototype.connect;
net.Server.prototype.listen = refuse('a listening server') as typeof net.Server.prototype.listen;
for (const name of ['spawn', 'exec', 'execFile', 'fork'] as const) {
  Object.defineProperty(childProcess, name, { value: refuse(`child_process.${name}`), configurable: true, writable: true });
}
// Named imports of node:child_process see the replacements too.
syncBuiltinESMExports();
