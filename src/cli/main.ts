// The `webddp` command line: dispatches to the subcommands. Usage errors exit 2 with the message;
// other failures exit 1 with "webddp <command>: <message>" (the stack with WEBDDP_DEBUG=1).
import { command as bench } from './cmd-bench.ts';
import { command as check } from './cmd-check.ts';
import { command as devices } from './cmd-devices.ts';
import { command as exportTorchrun } from './cmd-export-torchrun.ts';
import { command as init } from './cmd-init.ts';
import { command as parity } from './cmd-parity.ts';
import { command as sampler } from './cmd-sampler.ts';
import { command as train } from './cmd-train.ts';
import { UsageError, type CliEnv, type CliIO, type Command } from './command.ts';
import { VERSION } from '../version.ts';

const COMMANDS: readonly Command[] = [train, parity, check, bench, devices, sampler, init, exportTorchrun];

const io: CliIO = {
  out: (t) => {
    process.stdout.write(t);
  },
  err: (t) => {
    process.stderr.write(t);
  },
};

function help(): string {
  const w = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'webddp: data-parallel training on WebGPU, checked against PyTorch',
    '',
    'usage: webddp <command> [options]   (webddp <command> --help for details; webddp --version)',
    '',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(w)}  ${c.summary}`),
  ].join('\n');
}

/**
 * The rank worker is built next to this entry (dist-cli/rank-worker.mjs); the path is assembled at
 * run time so the bundler leaves it alone.
 */
const defaultEnv: CliEnv = { rankWorkerUrl: new URL(['.', 'rank-worker.mjs'].join('/'), import.meta.url) };

/**
 * `webddp bench | head`: once the reader of stdout (or stderr) has gone, stop quietly, as Unix tools do on
 * SIGPIPE, instead of dying on an unhandled EPIPE with a stack trace.
 */
function quietOnClosedPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') throw e;
      process.exit(process.exitCode ?? 0);
    });
  }
}

export async function main(argv: readonly string[], out: CliIO = io, env: CliEnv = defaultEnv): Promise<number> {
  if (out === io) quietOnClosedPipe();
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    out.out(`${help()}\n`);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    out.out(`webddp ${VERSION}\n`);
    return 0;
  }
  const cmd = COMMANDS.find((c) => c.name === name);
  if (!cmd) {
    out.err(`webddp: unknown command '${name}'\n\n${help()}\n`);
    return 2;
  }
  try {
    return await cmd.run(rest, out, env);
  } catch (e) {
    const err = e instanceof Error ? e : new Error(String(e));
    const usage = err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    out.err(`webddp ${name}: ${usage ? '' : 'error: '}${err.message}\n`);
    if (usage) out.err(`(webddp ${name} --help for usage)\n`);
    else if (process.env.WEBDDP_DEBUG) out.err(`${err.stack ?? ''}\n`);
    return usage ? 2 : 1;
  }
}
