/**
 * Loads and validates the configuration file (YAML or JSON). Either the whole file is valid
 * and a frozen config comes back, or a ConfigError lists every problem by its path.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { configSchema, type DroverConfig } from './schema.js';

export const DEFAULT_CONFIG_FILE = 'drover.config.yaml';

export interface ConfigProblem {
  /** Where the problem is, e.g. `pools[1].maxCount`; empty for the file as a whole. */
  path: string;
  message: string;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(
    readonly file: string,
    readonly problems: ConfigProblem[],
  ) {
    super(`invalid configuration ${file}:\n${problems.map((p) => `  ${p.path || '(file)'}: ${p.message}`).join('\n')}`);
  }
}

export function isConfigError(err: unknown): err is ConfigError {
  return err instanceof ConfigError;
}

export function formatPath(segments: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of segments) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out ? `.${String(seg)}` : String(seg);
  }
  return out;
}

/** The config file to use: the explicit one, then `$DROVER_CONFIG`, then `drover.config.yaml`. */
export function resolveConfigFile(explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(explicit ?? env.DROVER_CONFIG ?? DEFAULT_CONFIG_FILE);
}

/** Validates an already parsed document (plain data). */
export function parseConfig(data: unknown, file = '(inline)'): DroverConfig {
  const result = configSchema.safeParse(data ?? {});
  if (!result.success) {
    const problems = result.error.issues.map((issue) => ({
      path: formatPath(issue.path),
      message:
        issue.code === 'unrecognized_keys'
          ? `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`
          : issue.message,
    }));
    throw new ConfigError(file, problems);
  }
  return deepFreeze(file === '(inline)' ? result.data : resolveRelativeFiles(result.data, path.dirname(file)));
}

/**
 * Files the config names (a kubeconfig, a CA) are relative to the config file, not to wherever
 * the process happens to run: the deployed package carries them beside it.
 */
function resolveRelativeFiles(cfg: DroverConfig, dir: string): DroverConfig {
  const resolve = (f: string | undefined) => (f === undefined || f.startsWith('~') || path.isAbsolute(f) ? f : path.resolve(dir, f));
  return {
    ...cfg,
    ...(cfg.azure ? { azure: { ...cfg.azure, caFile: resolve(cfg.azure.caFile) } } : {}),
    ...(cfg.kubernetes ? { kubernetes: { ...cfg.kubernetes, kubeconfig: resolve(cfg.kubernetes.kubeconfig) } } : {}),
  };
}

/** Parses YAML or JSON text (JSON is YAML), reporting syntax errors with line and column. */
export function parseConfigText(text: string, file = '(inline)'): DroverConfig {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new ConfigError(
      file,
      doc.errors.map((e) => ({
        path: '',
        message: e.message.split('\n')[0]!.replace(/:$/, ''),
      })),
    );
  }
  return parseConfig(doc.toJS(), file);
}

export async function loadConfig(file: string): Promise<DroverConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new ConfigError(file, [{ path: '', message: `cannot read the file: ${(err as Error).message}` }]);
  }
  return parseConfigText(text, file);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
