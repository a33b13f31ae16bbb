/** `drover sim`: the embedded demo. */
import type { CliIO } from '../cli/commands.js';

export async function runDemo(io: CliIO, _opts: { port?: number }): Promise<number> {
  io.stdout('The embedded demo (Azurite, the ARM and Kubernetes simulators and the local host) arrives with the instance cache and scaler work; until then run `npm test` to see Drover on Azurite.\n');
  return 0;
}
