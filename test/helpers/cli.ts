// Runs `webddp` commands in-process from the bundle test/gpu/global-setup.ts builds (dist-cli),
// capturing stdout and stderr: the same code path as the installed command, real worker threads.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface CliRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

type Main = (argv: readonly string[], io: { out(t: string): void; err(t: string): void }) => Promise<number>;

export async function webddp(...argv: string[]): Promise<CliRun> {
  const mod = (await import(pathToFileURL(resolve('dist-cli/webddp.mjs')).href)) as { main: Main };
  let out = '';
  let err = '';
  const code = await mod.main(argv, {
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
  });
  return { code, out, err };
}

/** The JSON lines of a --json run of `type` (e.g. 'epoch'). */
export function jsonLines(out: string, type: string): Record<string, unknown>[] {
  return out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((o) => o.type === type);
}
