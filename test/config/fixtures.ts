// Config documents and a CLI runner shared by the config-file tests (config-file, bounds).
import { runCli } from '../../src/cli.js';
import { SUBSCRIPTION } from '../support/config.js';

export const azure = { subscriptionId: SUBSCRIPTION, credential: 'dev', resourceManagerEndpoint: 'https://127.0.0.1:1' };
export const pool = (extra: object = {}) => ({ name: 'workers', scaleSet: { resourceGroup: 'rg', name: 'vmss' }, ...extra });
export const target = (extra: object = {}) => ({
  name: 'web',
  scaleTargetRef: { kind: 'Deployment', namespace: 'default', name: 'web' },
  activator: { probeUrl: 'http://127.0.0.1:1/healthz' },
  ...extra,
});
export const k8s = { kubeconfig: '/dev/null' };

/** Runs the CLI with an empty environment and returns its exit code and output. */
export async function cli(args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), env: {} });
  return { code, stdout, stderr };
}
