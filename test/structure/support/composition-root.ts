/**
 * The composition root: the only files that build the runtime (src/runtime/) or take it whole.
 * Every other file is handed the few stores and clients it uses, as plain parameters whose types
 * it declares itself (Karpenter's NewControllers: the controllers are built once, each from what
 * it needs). So a reader sees in a job's signature what it can touch, and a test builds one from
 * exactly that.
 */

/** Files and folders (ending in `/`) of the composition root, each with why it belongs there. */
export const COMPOSITION_ROOT: readonly { path: string; why: string }[] = [
  { path: 'src/runtime/', why: 'builds the runtime: config, storage, queues, clock, adapters, and the stores by what they hold' },
  { path: 'src/handlers/', why: "the host's wiring: each function body takes the runtime from its host and hands each job its parts" },
  { path: 'src/host/local-host.ts', why: 'the local host: runs the handlers with the runtime its caller built' },
  { path: 'src/cli/commands.ts', why: "the CLI's wiring: each verb builds the runtime and hands the verb's job its parts" },
  { path: 'src/replay/cli-verb.ts', why: "`drover replay --from-history`'s wiring: builds the runtime to reach the history table" },
  { path: 'functions/', why: 'the Functions entry: registers the handlers with the runtime of the worker process' },
];

export const RUNTIME_MODULE = 'src/runtime/';

/** A call of the runtime's table lookup by name, the service locator the stores replace. */
const TABLE_LOOKUP = /\b(rt|runtime)\.table\(/;

export interface SourceFile {
  path: string;
  imports: readonly string[];
  text: string;
}

export const inCompositionRoot = (file: string) => COMPOSITION_ROOT.some(({ path }) => (path.endsWith('/') ? file.startsWith(path) : file === path));

/** Each file outside the composition root that imports the runtime module or looks a table up on the runtime, with what it does. */
export function outsideTheRoot(files: readonly SourceFile[]): string[] {
  return files
    .filter((file) => !inCompositionRoot(file.path))
    .flatMap((file) => [
      ...file.imports.filter((i) => i.startsWith(RUNTIME_MODULE)).map((i) => `${file.path} imports ${i}`),
      ...(TABLE_LOOKUP.test(file.text) ? [`${file.path} looks a table up on the runtime`] : []),
    ]);
}
