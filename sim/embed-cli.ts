/**
 * Imported first by sim/main.ts, before the command line it bundles: tells src/cli.ts that it
 * is not the program being run (see EMBEDDED_CLI there), so only main.ts calls runCli.
 */
(globalThis as Record<symbol, unknown>)[Symbol.for('drover.cli.embedded')] = true;
