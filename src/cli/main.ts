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
import { command as serve } from './cmd-serve.ts';
import { UsageError, type CliEnv, type CliIO, type Command } from './command.ts';
import { parseAndRun } from './parser.ts';

const COMMANDS: readonly Command[] = [train, parity, check, bench, devices, sampler, init, exportTorchrun, serve];

const ABOUT = 'webddp: data-parallel training on WebGPU, checked against PyTorch';

const io: CliIO = {
  out: (t) => {
    process.stdout.write(t);
  },
  err: (t) => {
    process.stderr.write(t);
  },
};

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
  const [name] = argv;
  const specs = COMMANDS.map((c) => c.spec);
  if (name === undefined) {
    await parseAndRun(specs, ['--help'], out, env, ABOUT);
    return 2;
  }
  // `webddp -v` and `webddp version` as before; -V and --version are commander's
  const words = name === '-v' || name === 'version' ? ['--version'] : argv;
  try {
    return await parseAndRun(specs, words, out, env, ABOUT);
  } catch (e) {
    const err = e instanceof Error ? e : new Error(String(e));
    const usage = err instanceof UsageError;
    const where = COMMANDS.some((c) => c.name === name) ? `webddp ${name}` : 'webddp';
    out.err(`${where}: ${usage ? '' : 'error: '}${err.message}\n`);
    if (usage) out.err(`(${where} --help for usage)\n`);
    else if (process.env.WEBDDP_DEBUG) out.err(`${err.stack ?? ''}\n`);
    return usage ? 2 : 1;
  }
}
