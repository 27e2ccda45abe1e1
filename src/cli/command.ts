// The shape of a `webddp` subcommand: parse its own argv (node:util parseArgs), write to io, return
// the exit code. src/cli/main.ts dispatches to these; each lives in its own file.

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

export interface Command {
  readonly name: string;
  /** One line for `webddp --help`. */
  readonly summary: string;
  /** Full usage text for `webddp <name> --help`. */
  readonly usage: string;
  run(argv: readonly string[], io: CliIO, env?: CliEnv): Promise<number>;
}

/** An error in the user's input (bad flag, bad file): printed without a stack, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
