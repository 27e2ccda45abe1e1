// The shape of a `webddp` subcommand: what it is called, its flags (declared once, parsed by
// src/cli/parser.ts with commander, which also writes its --help), and what it does with the values
// it was given. src/cli/main.ts dispatches to these; each lives in its own file.

export interface CliIO {
  /** Standard output (results: tables, JSON). */
  out(text: string): void;
  /** Standard error (progress, warnings, errors). */
  err(text: string): void;
}

/** Where the bundled CLI's files are (the rank worker lives next to the CLI bundle). */
export interface CliEnv {
  readonly rankWorkerUrl: URL;
}

/** One flag, as commander writes it: '--batch-size <B>', '--json', '-o, --out <FILE>'. */
export interface FlagSpec {
  readonly flags: string;
  /** What it does (one paragraph; commander wraps it). */
  readonly help: string;
  /** The default, shown in --help only: the value stays undefined when the flag is not given. */
  readonly default?: string | number;
  /** The only values it takes (checked by the parser, listed in --help). */
  readonly choices?: readonly string[];
}

/**
 * The values a command was given, under the long flag names without dashes ('batch-size',
 * 'no-shuffle'): a string for a flag with a value, true for a switch, undefined when not given.
 */
export type FlagValues = Readonly<Record<string, string | boolean | undefined>>;

export interface CommandSpec {
  readonly name: string;
  /** One line for `webddp --help`. */
  readonly summary: string;
  /** The synopsis after `webddp <name>` (one line, or several joined by newlines). */
  readonly synopsis: string;
  /** What the command does, before the flags in --help. */
  readonly description: string;
  /** Positional arguments, as commander writes them ('<FIXTURE>'); none by default. */
  readonly args?: readonly string[];
  readonly flags: readonly FlagSpec[];
  /** Text after the flags in --help (examples, exit codes). */
  readonly epilog?: string;
  run(values: FlagValues, positionals: readonly string[], io: CliIO, env?: CliEnv): Promise<number>;
}

export interface Command {
  readonly name: string;
  readonly summary: string;
  readonly spec: CommandSpec;
  /** Parses argv (the words after `webddp <name>`) and runs; usage errors throw UsageError. */
  run(argv: readonly string[], io: CliIO, env?: CliEnv): Promise<number>;
}

/** An error in the user's input (bad flag, bad file): printed without a stack, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
