// GPU-tier global setup: builds the Node bundle (dist-cli: the CLI and the rank worker thread,
// which must be JavaScript) once, so tests can run `webddp` commands in-process with real workers.
import { build } from 'vite';

export async function setup(): Promise<void> {
  await build({ configFile: 'vite.cli.config.ts', logLevel: 'warn' });
}
