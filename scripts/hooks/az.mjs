/** `az` and `azd` for the provision hooks: argument lists, never a shell string. */
import { execFileSync } from 'node:child_process';
import process from 'node:process';
import console from 'node:console';

export class AzError extends Error {}

/** Runs `az` and parses its JSON; a failure throws an AzError carrying what az printed on stderr. */
export function az(args) {
  let out;
  try {
    out = execFileSync('az', [...args, '--only-show-errors', '-o', 'json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    throw new AzError(`az ${args.slice(0, 2).join(' ')} failed: ${String(error.stderr ?? error.message).trim()}`, { cause: error });
  }
  return out.trim() ? JSON.parse(out) : undefined;
}

export function azdEnvSet(name, value) {
  execFileSync('azd', ['env', 'set', name, value], { stdio: 'inherit' });
}

/** `resourceGroup/name` entries of DROVER_SCALE_SETS. */
export function scaleSetsOf(env = process.env) {
  return (env.DROVER_SCALE_SETS ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const [resourceGroup, name, extra] = entry.split('/');
      if (!resourceGroup || !name || extra !== undefined) throw new Error(`DROVER_SCALE_SETS: "${entry}" is not resourceGroup/name`);
      return { resourceGroup, name };
    });
}

export function scaleSetSubscription(env = process.env) {
  return env.DROVER_SCALE_SET_SUBSCRIPTION_ID || env.AZURE_SUBSCRIPTION_ID;
}

export const say = (line) => console.log(`drover: ${line}`);
