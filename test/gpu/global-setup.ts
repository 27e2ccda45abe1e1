// GPU-tier global setup: builds the Node bundle (dist-cli: the CLI and the rank worker thread,
// which must be JavaScript) once, so tests can run `webddp` commands in-process with real workers.
// Once for both GPU projects (vitest.config.ts).
import { build } from 'vite';

/** Both GPU projects (vitest.config.ts) name this setup; they run in vitest's one main process. */
const key = Symbol.for('webddp.test.cliBuild');
type Shared = { [key]?: Promise<unknown> };

export async function setup(): Promise<void> {
  const shared = globalThis as Shared;
  shared[key] ??= build({ configFile: 'vite.cli.config.ts', logLevel: 'warn' });
  await shared[key];
}
