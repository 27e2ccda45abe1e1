// The command-line parser: every `webddp` command's flags declared once (a CommandSpec) and parsed
// by commander, which also writes --help (with each flag's default) and -V/--version for every
// command. What this file adds to commander: a flag given twice is refused (the second would
// silently win), torchrun / DeepSpeed / PyTorch-script spellings get a sentence on what webddp
// does instead, and every parse error becomes a UsageError (exit 2, printed once by main.ts).
import { Command as Commander, CommanderError, Option } from 'commander';
import { VERSION } from '../version.ts';
import { UsageError, type CliEnv, type CliIO, type Command, type CommandSpec } from './command.ts';

/** --help is wrapped to this width (stable in a pipe or a file, readable in a terminal). */
const HELP_WIDTH = 100;

const WORKERS =
  'webddp starts its ranks itself, as worker threads on this machine, each with its own WebGPU device: ' +
  'give --workers N';

/**
 * Flags people bring from torchrun, DeepSpeed's launcher and PyTorch's example scripts, with what
 * webddp does instead. Underscore spellings of webddp's own flags (--batch_size) are suggested
 * from the command's flags.
 */
const FOREIGN: Readonly<Record<string, string>> = {
  '--nproc_per_node': `torchrun's --nproc_per_node is --workers here: ${WORKERS}`,
  '--nproc-per-node': `torchrun's --nproc-per-node is --workers here: ${WORKERS}`,
  '--local_rank':
    "torchrun and the DeepSpeed launcher pass --local_rank to each process they start; webddp's ranks are " +
    'worker threads it starts and numbers itself, so nothing reads one: give --workers N',
  '--local-rank':
    "torchrun passes --local-rank to each process it starts; webddp's ranks are worker threads it starts and " +
    'numbers itself, so nothing reads one: give --workers N',
  '--num_gpus':
    `the DeepSpeed launcher's --num_gpus is --workers here: ${WORKERS} (--devices NAME,... picks adapters, ` +
    '--colocate puts every rank on one)',
  '--num-gpus': `the DeepSpeed launcher's --num-gpus is --workers here: ${WORKERS}`,
  '--nnodes':
    'webddp trains on one machine; `webddp export-torchrun` writes a PyTorch project that torchrun runs on several',
  '--deepspeed': 'give the DeepSpeed config itself: --deepspeed-config ds_config.json',
  '--epoch': 'did you mean --epochs?',
};

/** commander's Command, with webddp's message for an unknown flag. */
class WebddpCommand extends Commander {
  unknownOption(flag: string): never {
    const name = flag.split('=')[0] ?? flag;
    const longs = this.options.map((o) => o.long).filter((l): l is string => l !== undefined);
    const hyphens = name.startsWith('--') ? `--${name.slice(2).replaceAll('_', '-')}` : name;
    const hint =
      (name !== hyphens && longs.includes(hyphens) ? `did you mean ${hyphens}? (webddp's flags use hyphens)` : '') ||
      (FOREIGN[name] ?? '');
    if (hint) this.error(`unknown option '${name}': ${hint}`, { code: 'commander.unknownOption' });
    // commander's own message, with its "did you mean" for near misses (not in its typings)
    (Commander.prototype as unknown as { unknownOption(f: string): void }).unknownOption.call(this, flag);
    throw new UsageError(`unknown option '${name}'`);
  }
}

/** The long name without dashes ('batch-size', 'no-shuffle'). */
const keyOf = (o: Option) => (o.long ?? o.flags).replace(/^--/, '');

function toCommander(spec: CommandSpec, io: CliIO, env: CliEnv | undefined, done: (code: number) => void): Commander {
  const cmd = new WebddpCommand(spec.name)
    .summary(spec.summary)
    .description(spec.description)
    .usage(spec.synopsis.split('\n').join(`\n       webddp ${spec.name} `))
    .version(`webddp ${VERSION}`, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'print this help')
    .configureHelp({ helpWidth: HELP_WIDTH, sortOptions: false });
  for (const a of spec.args ?? []) cmd.argument(a);
  for (const f of spec.flags) {
    const o = new Option(f.flags, f.help);
    if (f.choices) o.choices(f.choices);
    if (f.default !== undefined) o.default(f.default, String(f.default));
    cmd.addOption(o);
  }
  if (spec.epilog) cmd.addHelpText('after', `\n${spec.epilog}`);
  // A flag given twice: refuse it rather than let the last one win silently.
  const seen = new Set<string>();
  for (const o of cmd.options) {
    cmd.on(`option:${o.name()}`, () => {
      if (seen.has(o.name())) cmd.error(`${o.long ?? o.flags} was given twice: give it once`);
      seen.add(o.name());
    });
  }
  cmd.action(async (...args: unknown[]) => {
    const values: Record<string, string | boolean | undefined> = {};
    for (const o of cmd.options) {
      const attr = o.attributeName();
      if (cmd.getOptionValueSource(attr) !== 'cli') continue;
      const v = cmd.getOptionValue(attr) as string | boolean;
      values[keyOf(o)] = o.negate ? v === false : v;
    }
    const positionals = args.slice(0, spec.args?.length ?? 0).filter((a): a is string => typeof a === 'string');
    done(await spec.run(values, positionals, io, env));
  });
  return cmd;
}

function configure(cmd: Commander, io: CliIO): void {
  cmd.exitOverride().configureOutput({
    writeOut: (s) => io.out(s),
    writeErr: (s) => io.err(s),
    outputError: () => undefined, // main.ts prints the UsageError once
  });
}

/**
 * Parses argv (the words after `webddp`) against the commands and runs the one named. --help and
 * --version print to io.out and return 0; every parse error throws a UsageError.
 */
export async function parseAndRun(
  commands: readonly CommandSpec[],
  argv: readonly string[],
  io: CliIO,
  env: CliEnv | undefined,
  about = '',
): Promise<number> {
  let code = 0;
  const program = new WebddpCommand('webddp')
    .description(about)
    .version(`webddp ${VERSION}`, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'print this help')
    .configureHelp({ helpWidth: HELP_WIDTH })
    .showSuggestionAfterError(true);
  configure(program, io);
  for (const spec of commands) {
    const sub = toCommander(spec, io, env, (c) => {
      code = c;
    });
    configure(sub, io);
    program.addCommand(sub);
  }
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (e) {
    if (!(e instanceof CommanderError)) throw e;
    // --help, -V, and `webddp help [command]` (commander.help) have printed what was asked
    if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help')
      return e.exitCode;
    throw new UsageError(
      e.message.replace(/^error: /, '').replace(/\n\(Did you mean (.*)\?\)$/, ' (did you mean $1?)'),
    );
  }
  return code;
}

/** A runnable command from its spec (tests run one through this; main.ts runs them all together). */
export function defineCommand(spec: CommandSpec): Command {
  return {
    name: spec.name,
    summary: spec.summary,
    spec,
    run: (argv, io, env) => parseAndRun([spec], [spec.name, ...argv], io, env),
  };
}
