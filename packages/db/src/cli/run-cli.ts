/** Runs a CLI body: its return value is the exit code; an unexpected error prints and exits 1. */
export async function runCli(main: () => Promise<number>): Promise<never> {
  let code: number;
  try {
    code = await main();
  } catch (error) {
    console.error(error instanceof Error ? `Error: ${error.message}` : error);
    if (process.env.DEBUG && error instanceof Error) console.error(error.stack);
    code = 1;
  }
  // PGlite and the wasm engine can keep handles open; the command is done either way.
  process.exit(code);
}
