/**
 * Loads and validates the configuration file (YAML or JSON). Either the whole file is valid
 * and a frozen config comes back, or a ConfigError lists every problem by its path.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { isMap, isScalar, isSeq, parseDocument, type Node } from 'yaml';
import { configSchema, offlineConfigSchema, type DroverConfig } from './schema.js';

export const DEFAULT_CONFIG_FILE = 'drover.config.yaml';
/** Larger than any real fleet's file; keeps parsing and validation quick. */
const MAX_CONFIG_BYTES = 256 * 1024;

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

export interface LoadOptions {
  /** For a tool that reaches neither Azure nor Kubernetes (replay): their sections may be absent. */
  offline?: boolean;
}

/** Validates an already parsed document (plain data). */
export function parseConfig(data: unknown, file = '(inline)', options: LoadOptions = {}): DroverConfig {
  const result = (options.offline ? offlineConfigSchema : configSchema).safeParse(data ?? {});
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
export function parseConfigText(text: string, file = '(inline)', options: LoadOptions = {}): DroverConfig {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_CONFIG_BYTES) throw tooLarge(file, bytes);
  // The yaml library's own uniqueKeys check compares every key with every other (quadratic).
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: false });
  if (doc.errors.length === 0) {
    const duplicates = duplicateKeys(doc.contents);
    if (duplicates.length > 0) throw new ConfigError(file, duplicates);
  }
  if (doc.errors.length > 0) {
    throw new ConfigError(
      file,
      doc.errors.map((e) => ({
        path: '',
        message: e.message.split('\n')[0]!.replace(/:$/, ''),
      })),
    );
  }
  return parseConfig(doc.toJS(), file, options);
}

function tooLarge(file: string, bytes: number): ConfigError {
  return new ConfigError(file, [{ path: '', message: `the file is ${bytes} bytes, more than the ${MAX_CONFIG_BYTES} (256 KiB) allowed` }]);
}

/** Every key repeated within one mapping, by path; one Set per mapping, so linear in the file. */
function duplicateKeys(root: unknown): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const visit = (node: unknown, at: PropertyKey[]) => {
    if (isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        if (seen.has(key)) problems.push({ path: formatPath(at), message: `duplicate key "${key}"` });
        seen.add(key);
        visit(pair.value, [...at, key]);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item: unknown, i) => visit(item, [...at, i]));
    }
  };
  visit(root as Node | null, []);
  return problems;
}

export async function loadConfig(file: string, options: LoadOptions = {}): Promise<DroverConfig> {
  let text: string;
  try {
    const size = (await stat(file)).size;
    if (size > MAX_CONFIG_BYTES) throw tooLarge(file, size);
    text = await readFile(file, 'utf8');
  } catch (err) {
    if (isConfigError(err)) throw err;
    throw new ConfigError(file, [{ path: '', message: `cannot read the file: ${(err as Error).message}` }]);
  }
  return parseConfigText(text, file, options);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
